/**
 * Self-update: the update-loop guard's decision, and the updater against a real
 * Argus serving small fake builds (sh scripts that print their version) from AGENT_DIST_DIR: it
 * downloads, checks the sha256 and the build's own --version, swaps the executable and restarts; it
 * refuses a wrong checksum, a build that lies about its version, a version it installed that never
 * reported itself, and says once that it cannot write where its executable lives.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { createUpdater, decideUpdate, loadAttempt, type UpdaterDeps } from '../src/update.js';

const dist = await mkdtemp(join(tmpdir(), 'argus-update-dist-'));
const script = (version: string) => `#!/bin/sh\necho ${version}\n`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A release in AGENT_DIST_DIR whose x86_64 "binary" prints `says`. */
async function release(version: string, says = version): Promise<void> {
  await mkdir(join(dist, version), { recursive: true });
  const body = script(says);
  await writeFile(join(dist, version, 'argus-agent-linux-x86_64'), body, { mode: 0o755 });
  const files = { x86_64: { sha256: sha(body), size: Buffer.byteLength(body) } };
  await writeFile(join(dist, version, 'manifest.json'), JSON.stringify({ version, files }));
}

describe('agent self-update', () => {
  const fixture = useTestServer({ AGENT_DIST_DIR: dist });
  let dir: string;
  let executable: string;
  let lines: string[];
  let restarts: number;
  const offer = (version: string, body = script(version)) => ({
    version,
    url: `${fixture.server.url}/api/agent/download/${version}/x86_64`,
    sha256: sha(body),
  });
  const updater = (running: string, extra: Partial<UpdaterDeps> = {}) =>
    createUpdater({
      stateDir: join(dir, 'state'),
      running,
      webhookUrl: `${fixture.server.url}/api/webhook/metrics`,
      executable,
      rootInstallsStaged: false,
      log: (line) => lines.push(line),
      restart: () => {
        restarts += 1;
      },
      ...extra,
    });

  before(async () => {
    await release('1.2.4');
    await release('1.2.5');
    await release('1.2.6', '1.2.3');
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-update-'));
    await mkdir(join(dir, 'bin'));
    executable = join(dir, 'bin', 'argus-agent');
    await writeFile(executable, script('1.2.3'), { mode: 0o755 });
    lines = [];
    restarts = 0;
  });
  after(async () => {
    await rm(dist, { recursive: true, force: true });
  });

  it('decides: nothing offered or the running version → nothing; a version installed and not reported → never again in a row', () => {
    const offered = { version: '1.2.4', url: 'http://argus/x', sha256: 'a'.repeat(64) };
    const attempt = { version: '1.2.4', from: '1.2.3', at: '2026-11-26T05:00:00.000Z', reported: false };
    assert.deepEqual(decideUpdate(null, '1.2.3', null), { install: false, why: null });
    assert.deepEqual(decideUpdate(offered, '1.2.4', null), { install: false, why: null });
    assert.deepEqual(decideUpdate(offered, '1.2.3', null), { install: true });
    const guarded = decideUpdate(offered, '1.2.3', attempt);
    assert.equal(guarded.install, false);
    assert.match(
      (guarded as { why: string }).why,
      /1\.2\.4 was installed at .* never reported itself .*reports 1\.2\.3/,
    );
    assert.deepEqual(decideUpdate(offered, '1.2.3', { ...attempt, reported: true }), { install: true });
    assert.deepEqual(decideUpdate({ ...offered, version: '1.2.5' }, '1.2.3', attempt), { install: true });
  });

  it('downloads, checks, swaps the executable in place and restarts; the new version then reports itself', async () => {
    // a download an earlier process left unfinished
    await writeFile(join(dir, 'bin', '.argus-agent.1.2.2.download'), 'half a build');
    const first = updater('1.2.3');
    await first.answered(offer('1.2.4'));
    await first.settled();
    assert.equal(restarts, 0, 'the swap waits for the next accepted answer');
    await first.answered(null);
    assert.equal(restarts, 1);
    assert.equal(await readFile(executable, 'utf8'), script('1.2.4'));
    assert.equal((await stat(executable)).mode & 0o777, 0o755, 'the mode of the executable it replaced');
    assert.deepEqual(await readdir(join(dir, 'bin')), ['argus-agent'], 'no download left beside it, old or new');
    assert.deepEqual(
      { ...(await loadAttempt(join(dir, 'state'))), at: undefined },
      { version: '1.2.4', from: '1.2.3', at: undefined, reported: false },
    );
    assert.match(lines.join('\n'), /installed argus-agent 1\.2\.4 \(was 1\.2\.3\); restarting/);

    // the restarted agent's first accepted answer
    await updater('1.2.4').answered(null);
    assert.equal((await loadAttempt(join(dir, 'state')))?.reported, true);
  });

  it('does not install a version again that was installed and did not report itself (the 2.27.0 loop)', async () => {
    const state = join(dir, 'state');
    await mkdir(state);
    const attempt = { version: '1.2.4', from: '1.2.3', at: '2026-11-26T05:00:00.000Z', reported: false };
    await writeFile(join(state, 'update.json'), JSON.stringify(attempt));
    const agent = updater('1.2.3');
    for (let i = 0; i < 3; i += 1) await agent.answered(offer('1.2.4'));
    await agent.settled();
    assert.equal(await readFile(executable, 'utf8'), script('1.2.3'), 'not swapped');
    assert.equal(lines.filter((line) => /never reported itself/.test(line)).length, 1, 'said once');
    assert.ok(!lines.some((line) => line.startsWith('downloading')), 'not even downloaded');
    // a newer build is another version: installed
    await agent.answered(offer('1.2.5'));
    await agent.settled();
    await agent.answered(null);
    assert.equal(restarts, 1);
    assert.equal(await readFile(executable, 'utf8'), script('1.2.5'));
  });

  it('refuses a download whose sha256 differs, keeps its executable, and tries that version again only after an hour', async () => {
    let now = Date.parse('2026-11-26T05:00:00Z');
    const agent = updater('1.2.3', { now: () => now });
    const corrupted = { ...offer('1.2.4'), sha256: sha('something else') };
    await agent.answered(corrupted);
    await agent.settled();
    await agent.answered(null);
    assert.equal(restarts, 0);
    assert.equal(await readFile(executable, 'utf8'), script('1.2.3'));
    assert.deepEqual(await readdir(join(dir, 'bin')), ['argus-agent'], 'the download is removed');
    assert.match(lines.join('\n'), /update to 1\.2\.4 refused: checksum mismatch .*keeping 1\.2\.3/);
    assert.equal(await loadAttempt(join(dir, 'state')), null, 'a refused download is no install');

    now += 30 * 60_000;
    await agent.answered(corrupted);
    assert.equal(lines.filter((line) => line.startsWith('downloading')).length, 1, 'not within the hour');
    now += 31 * 60_000;
    await agent.answered(corrupted);
    await agent.settled();
    assert.equal(lines.filter((line) => line.startsWith('downloading')).length, 2);
  });

  it('refuses a build that reports another version than it was offered as', async () => {
    const agent = updater('1.2.3');
    await agent.answered(offer('1.2.6', script('1.2.3')));
    await agent.settled();
    await agent.answered(null);
    assert.equal(restarts, 0);
    assert.equal(await readFile(executable, 'utf8'), script('1.2.3'));
    assert.match(lines.join('\n'), /update to 1\.2\.6 refused: the build says it is 1\.2\.3/);
  });

  it('carries on when the swap itself fails, and does not count it as an install', async () => {
    // a rename(2) onto a directory that holds something fails, whoever runs it
    const blocked = join(dir, 'bin', 'blocked');
    await mkdir(blocked);
    await writeFile(join(blocked, 'inside'), '');
    const agent = updater('1.2.3', { executable: blocked });
    await agent.answered(offer('1.2.4'));
    await agent.settled();
    await agent.answered(null);
    assert.equal(restarts, 0);
    assert.match(lines.join('\n'), /update to 1\.2\.4 not installed: .*keeping 1\.2\.3/);
    assert.equal(await loadAttempt(join(dir, 'state')), null, 'the guard holds nothing against 1.2.4');
    assert.deepEqual((await readdir(join(dir, 'bin'))).sort(), ['argus-agent', 'blocked'], 'the download removed');
  });

  it('says once that it cannot write where its executable lives, and keeps running', async () => {
    // sysfs takes no new files, not even from root
    const agent = updater('1.2.3', { executable: '/sys/argus-agent' });
    for (let i = 0; i < 3; i += 1) await agent.answered(offer('1.2.4'));
    await agent.settled();
    assert.equal(restarts, 0);
    assert.deepEqual(lines, [
      'update to 1.2.4 offered, but /sys is not writable by this agent: run the installer again to update it; keeping 1.2.3',
    ]);
  });

  it('stages a checked build for the root start step where it cannot write its executable, and restarts', async () => {
    // sysfs takes no new files, not even from root: the executable's directory is not the agent's
    const agent = updater('1.2.3', { executable: '/sys/argus-agent', rootInstallsStaged: true });
    await agent.answered(offer('1.2.4'));
    await agent.settled();
    assert.equal(restarts, 0, 'the restart waits for the next accepted answer');
    await agent.answered(null);
    assert.equal(restarts, 1);
    const staging = join(dir, 'state', 'update');
    assert.deepEqual((await readdir(staging)).sort(), ['argus-agent', 'version']);
    assert.equal(await readFile(join(staging, 'argus-agent'), 'utf8'), script('1.2.4'));
    assert.equal(await readFile(join(staging, 'version'), 'utf8'), '1.2.4\n');
    assert.equal((await loadAttempt(join(dir, 'state')))?.version, '1.2.4', 'the guard knows of it');
    assert.match(lines.join('\n'), /staged argus-agent 1\.2\.4 for the root start step \(was 1\.2\.3\); restarting/);
  });

  it('holds nothing against a staged build the root start step refused: tried again after an hour', async () => {
    // the agent staged 1.2.4 and restarted; the root step consumed the staging but left 1.2.3 in place
    const state = join(dir, 'state');
    await mkdir(state);
    const staged = { sha256: sha(script('1.2.4')) };
    const attempt = { version: '1.2.4', from: '1.2.3', at: '2026-11-26T05:00:00.000Z', reported: false, staged };
    await writeFile(join(state, 'update.json'), JSON.stringify(attempt));
    let now = Date.parse('2026-11-26T05:01:00Z');
    const agent = updater('1.2.3', { now: () => now });
    await agent.answered(offer('1.2.4'));
    assert.deepEqual(lines, ['the root start step did not install argus-agent 1.2.4; trying again in an hour']);
    assert.equal(await loadAttempt(state), null, 'no install recorded');
    now += 61 * 60_000;
    await agent.answered(offer('1.2.4'));
    await agent.settled();
    assert.equal(lines.at(-1), 'downloading argus-agent 1.2.4');
  });

  it('says once that a staged build waits for a root start step the unit does not have, and holds it', async () => {
    const state = join(dir, 'state');
    await mkdir(join(state, 'update'), { recursive: true });
    await writeFile(join(state, 'update', 'version'), '1.2.4\n');
    const staged = { sha256: sha(script('1.2.4')) };
    const attempt = { version: '1.2.4', from: '1.2.3', at: '2026-11-26T05:00:00.000Z', reported: false, staged };
    await writeFile(join(state, 'update.json'), JSON.stringify(attempt));
    const agent = updater('1.2.3');
    for (let i = 0; i < 3; i += 1) await agent.answered(offer('1.2.4'));
    assert.match(
      lines[0] ?? '',
      /^argus-agent 1\.2\.4 is staged but was not installed: the unit has no root start step/,
    );
    assert.equal(lines.filter((line) => line.includes('no root start step')).length, 1);
    assert.ok(!lines.some((line) => line.startsWith('downloading')));
  });

  it('run from source, has no executable of its own to replace', async () => {
    const agent = updater('1.2.3', { executable: null });
    await agent.answered(offer('1.2.4'));
    await agent.answered(offer('1.2.4'));
    assert.deepEqual(lines, ['update to 1.2.4 offered; an agent run from source does not update itself']);
  });
});
