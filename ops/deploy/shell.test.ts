/** Every shell script of the repository is clean for shellcheck (each checked as the shell its shebang names). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, repositoryFiles, runTool } from './support.js';

test('shellcheck finds nothing in any *.sh of the repository', async () => {
  const scripts = (await repositoryFiles()).filter(
    (file) => file.endsWith('.sh') && existsSync(path.join(REPO_ROOT, file)),
  );
  for (const expected of ['ops/emergency-reclaim.sh', 'ops/docker-entrypoint.sh', 'ops/test/prepare-machine.sh']) {
    assert.ok(scripts.includes(expected), `${expected} is checked`);
  }
  const result = await runTool('shellcheck', ['--external-sources', ...scripts]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
});

test('the image entrypoint is POSIX sh (the slim image runs it with dash)', async () => {
  const result = await runTool('shellcheck', ['--shell=sh', 'ops/docker-entrypoint.sh']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const parsed = await runTool('dash', ['-n', 'ops/docker-entrypoint.sh']);
  assert.equal(parsed.code, 0, parsed.stderr);
});
