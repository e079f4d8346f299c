/**
 * disk.readonly says a file system turned read-only, not that it is read-only: real tmpfs mounts
 * (the tests run as root, as the agent does), one read-only from the start and one remounted
 * read-only while the agent watches, and /etc/fstab's word for mounts the agent first sees read-only.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { disksCollector } from '../src/collectors/disks.js';
import { localHost, type Host } from '../src/host.js';
import type { Sample } from '../src/sample.js';
import { plainStatFiles } from './fixture-host.js';

const readonlyOf = (samples: Sample[], mount: string) =>
  samples.find((s) => s.name === 'disk.readonly' && s.instance === mount)?.value;

const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });

describe('disk.readonly on real mounts', () => {
  let dir: string;
  let byDesign: string;
  let turning: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'argus-readonly-'));
    byDesign = path.join(dir, 'by-design');
    turning = path.join(dir, 'turning');
    execFileSync('mkdir', [byDesign, turning]);
    mount('-t', 'tmpfs', '-o', 'ro,size=1m', 'argus-test', byDesign);
    mount('-t', 'tmpfs', '-o', 'rw,size=1m', 'argus-test', turning);
  });
  after(async () => {
    for (const mounted of [byDesign, turning]) execFileSync('umount', [mounted]);
    await rm(dir, { recursive: true, force: true });
  });

  it('reports 0 for a mount read-only from the first look, and 1 once a writable one is remounted read-only', async () => {
    const look = disksCollector(localHost());
    const first = await look();
    assert.equal(readonlyOf(first, byDesign), 0, 'read-only by design');
    assert.equal(readonlyOf(first, turning), 0, 'writable');
    mount('-o', 'remount,ro', turning);
    const second = await look();
    assert.equal(readonlyOf(second, byDesign), 0, 'still read-only by design');
    assert.equal(readonlyOf(second, turning), 1, 'turned read-only while mounted');
    mount('-o', 'remount,rw', turning);
    assert.equal(readonlyOf(await look(), turning), 0, 'writable again');
  });
});

describe('disk.readonly and /etc/fstab', () => {
  const stats = { bsize: 4096, blocks: 100, bfree: 50, bavail: 50, files: 10, ffree: 5 };
  const hostWith = (files: Record<string, string>): Host => ({
    read: async (file) => files[file] ?? null,
    list: async () => [],
    statfs: async () => stats,
    isDirectory: async () => true,
    procStats: plainStatFiles((file) => files[file] ?? null),
  });

  it('reports 1 at the first look for a mount fstab mounts writable (remounted read-only before the agent started)', async () => {
    const host = hostWith({
      '/etc/fstab': '# a comment\nUUID=1 / ext4 errors=remount-ro 0 1\nUUID=2 /srv/my\\040data ext4 defaults,ro 0 2\n',
      '/proc/self/mounts': '/dev/sda1 / ext4 ro,relatime 0 0\n/dev/sda2 /srv/my\\040data ext4 ro 0 0\n',
    });
    const samples = await disksCollector(host)();
    assert.equal(readonlyOf(samples, '/'), 1, 'fstab mounts / writable');
    assert.equal(readonlyOf(samples, '/srv/my data'), 0, 'fstab mounts it read-only');
  });

  it('reports 0 for a mount fstab mounts read-only, even after the agent saw it writable', async () => {
    const files = { '/etc/fstab': 'UUID=2 /srv ext4 ro 0 2\n', '/proc/self/mounts': '/dev/sda2 /srv ext4 rw 0 0\n' };
    const look = disksCollector(hostWith(files));
    assert.equal(readonlyOf(await look(), '/srv'), 0);
    files['/proc/self/mounts'] = '/dev/sda2 /srv ext4 ro 0 0\n';
    assert.equal(readonlyOf(await look(), '/srv'), 0);
  });
});
