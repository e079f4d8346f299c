/**
 * The host tools' runner looks a tool up on PATH and does not start one that is not installed: a
 * fork of the agent costs it ~2 ms of CPU, and a missing tool (chronyc on a host whose time
 * timesyncd keeps) was forked every minute for nothing. A tool installed later is found after
 * TOOL_LOOKUP_MS; one removed since its lookup answers null and is looked up again.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TOOL_LOOKUP_MS, toolRunner } from '../src/run-tool.js';

describe('host tools on PATH', () => {
  let dir: string;
  let savedPath: string | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-tools-'));
    savedPath = process.env['PATH'];
    process.env['PATH'] = `${dir}:/usr/bin:/bin`;
  });
  after(async () => {
    process.env['PATH'] = savedPath;
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a tool found on PATH, and skips one that is not there until it is looked up again', async () => {
    let clock = 0;
    const run = toolRunner(() => clock);
    const tool = join(dir, 'argus-test-tool');
    assert.equal(await run('argus-test-tool', []), null, 'not installed: no answer');

    await writeFile(tool, '#!/bin/sh\necho "ran $1"\nexit 3\n');
    await chmod(tool, 0o755);
    assert.equal(
      await run('argus-test-tool', ['x']),
      null,
      'installed since the lookup: not started before the next one',
    );

    clock += TOOL_LOOKUP_MS;
    assert.deepEqual(await run('argus-test-tool', ['x']), { code: 3, stdout: 'ran x\n' });

    await rm(tool);
    assert.equal(await run('argus-test-tool', ['x']), null, 'removed: no answer');
    await writeFile(tool, '#!/bin/sh\necho back\n');
    await chmod(tool, 0o755);
    assert.deepEqual(
      await run('argus-test-tool', []),
      { code: 0, stdout: 'back\n' },
      'looked up again after it was gone',
    );
  });

  it('runs a tool named by its path as it is', async () => {
    const run = toolRunner();
    assert.deepEqual(await run('/bin/sh', ['-c', 'echo $LC_ALL']), { code: 0, stdout: 'C\n' });
  });
});
