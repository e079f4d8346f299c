/**
 * The unit's root start step (install-update): it installs the build the agent staged in its state
 * directory only when a real Argus publishes that sha256 for the release the agent named, reads nothing
 * through a link the agent's account could plant, and never fails the start.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { fakeBuild, writeRelease } from '../../backend/src/testing/agent-builds.js';
import { useTestServer } from '../../backend/src/testing/app.js';
import { installStagedUpdate } from '../src/install-update.js';

const dist = await mkdtemp(join(tmpdir(), 'argus-install-update-dist-'));
await writeRelease(dist, '1.2.4', { x86_64: fakeBuild('1.2.4') });

describe('install-update, the root start step', () => {
  const fixture = useTestServer({ AGENT_DIST_DIR: dist });
  let dir: string;
  let executable: string;
  let staging: string;
  let lines: string[];
  const step = () =>
    installStagedUpdate({
      stateDir: join(dir, 'state'),
      executable,
      webhookUrl: `${fixture.server.url}/api/webhook/metrics`,
      arch: 'x86_64',
      log: (line) => lines.push(line),
    });
  const stage = async (version: string, build: Buffer) => {
    await writeFile(join(staging, 'version'), `${version}\n`);
    await writeFile(join(staging, 'argus-agent'), build, { mode: 0o700 });
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-install-update-'));
    await mkdir(join(dir, 'lib'));
    executable = join(dir, 'lib', 'argus-agent');
    await writeFile(executable, fakeBuild('1.2.3'), { mode: 0o755 });
    staging = join(dir, 'state', 'update');
    await mkdir(staging, { recursive: true });
    lines = [];
  });
  after(async () => {
    await rm(dist, { recursive: true, force: true });
  });

  it('installs a staged build whose sha256 the server publishes for that release, then clears the staging', async () => {
    await stage('1.2.4', fakeBuild('1.2.4'));
    await step();
    assert.deepEqual(await readFile(executable), fakeBuild('1.2.4'));
    assert.equal((await stat(executable)).mode & 0o777, 0o755);
    assert.deepEqual(await readdir(join(dir, 'lib')), ['argus-agent'], 'no copy left beside it');
    assert.deepEqual(await readdir(staging), []);
    assert.deepEqual(lines, ["installed the staged argus-agent 1.2.4 (its sha256 is the server's)"]);
  });

  it('refuses a staged build that is not the server’s, or a release the server does not list', async () => {
    await stage('1.2.4', Buffer.from('#!/bin/sh\nid > /tmp/owned\n'));
    await step();
    await stage('1.2.5', fakeBuild('1.2.4'));
    await step();
    await stage('1.2.4; rm -rf /', fakeBuild('1.2.4'));
    await step();
    assert.deepEqual(await readFile(executable), fakeBuild('1.2.3'), 'not replaced');
    assert.deepEqual(await readdir(join(dir, 'lib')), ['argus-agent'], 'the copy removed');
    assert.deepEqual(await readdir(staging), []);
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? '', /the staged build of 1\.2\.4 is not the server's \(sha256 [0-9a-f]{64}, expected/);
    assert.match(lines[1] ?? '', /the server does not vouch for 1\.2\.5 \(the server answered 404\)/);
    assert.match(lines[2] ?? '', /the staged version "1\.2\.4; rm -rf \/" is no release number/);
  });

  it('reads nothing through a link planted in the staging directory, and removes the link', async () => {
    // the server's own build, but behind a link: refused all the same (a link could name any root file)
    const elsewhere = join(dir, 'elsewhere');
    await writeFile(elsewhere, fakeBuild('1.2.4'));
    await writeFile(join(staging, 'version'), '1.2.4\n');
    await symlink(elsewhere, join(staging, 'argus-agent'));
    await step();
    assert.deepEqual(await readFile(executable), fakeBuild('1.2.3'));
    assert.match(lines[0] ?? '', /staged update not installed: ELOOP/);
    assert.deepEqual(await readdir(staging), []);
    assert.deepEqual(await readFile(elsewhere), fakeBuild('1.2.4'), 'the link removed, not what it named');

    await symlink(elsewhere, join(staging, 'version'));
    await step();
    assert.match(lines[1] ?? '', /staged update not installed: ELOOP/);
  });

  it('does nothing, and says nothing, when nothing is staged', async () => {
    await rm(staging, { recursive: true });
    await step();
    assert.deepEqual(lines, []);
    assert.deepEqual(await readFile(executable), fakeBuild('1.2.3'));
  });
});
