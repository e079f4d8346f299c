/**
 * Files kept open between reads (kept-files.ts): each read sees the file as it is now, a file gone
 * reads as absent, and a sweep closes what was not read since the last one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { keptFiles } from '../src/kept-files.js';

/** This process's descriptors open on its own /proc stat files (others come and go with the test runner). */
async function openFds(): Promise<number> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.startsWith(`/proc/${process.pid}/stat`)).length;
}
const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('files kept open between reads', () => {
  it('reads what the file holds now, and a missing file as null', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-kept-'));
    dirs.push(dir);
    const file = join(dir, 'counter');
    await writeFile(file, 'usage 1\n');
    const kept = keptFiles(10);
    assert.equal(kept.read(file), 'usage 1\n');
    await writeFile(file, 'usage 22\n');
    assert.equal(kept.read(file), 'usage 22\n');
    assert.equal(kept.read(join(dir, 'no-such-file')), null);
  });

  it("reads a process's stat afresh, and as null once the process is gone", async () => {
    const kept = keptFiles(10);
    const child = spawn('sleep', ['30']);
    const path = `/proc/${child.pid}/stat`;
    assert.match(kept.read(path) ?? '', /^\d+ \([^)]+\) [RSD] /);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill();
    await exited; // reaped: the pid's files are gone
    assert.equal(kept.read(path), null);
  });

  it('closes on a sweep the files not read since the last one, and keeps no more than its limit', async () => {
    const before = await openFds();
    const kept = keptFiles(2);
    kept.read('/proc/self/stat');
    kept.read('/proc/self/statm');
    kept.read('/proc/self/status'); // over the limit: read the plain way, not kept
    assert.equal(kept.read('/proc/self/status')?.startsWith('Name:'), true);
    assert.equal(await openFds(), before + 2);
    kept.sweep();
    kept.read('/proc/self/stat');
    kept.sweep(); // statm was not read since the last sweep
    assert.equal(await openFds(), before + 1);
    kept.sweep();
    assert.equal(await openFds(), before);
  });

  it('closes every file at once when its reader is turned off, and opens them again when read', async () => {
    const before = await openFds();
    const kept = keptFiles(10);
    kept.read('/proc/self/stat');
    kept.read('/proc/self/statm');
    assert.equal(await openFds(), before + 2);
    kept.closeAll();
    assert.equal(await openFds(), before);
    assert.match(kept.read('/proc/self/stat') ?? '', /^\d+ \(/);
    assert.equal(await openFds(), before + 1);
    kept.closeAll();
  });
});
