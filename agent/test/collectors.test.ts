/**
 * Every collector against recorded hosts (fixtures/*.json): an x86_64 VM recorded on this machine,
 * a Raspberry Pi class aarch64 host, a Docker container. Values are checked against the fixtures'
 * numbers worked out by hand; what a host cannot tell is absent, never 0.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBodySchema } from '../../contracts/agent-report.js';
import { watchedMounts } from '../src/collectors/disks.js';
import { degradedArrays } from '../src/collectors/kernel.js';
import { hostFacts } from '../src/facts.js';
import type { Sample } from '../src/sample.js';
import { collectTwoLooks, fixtureHost, loadFixture } from './fixture-host.js';

/** no host tools: the recorded host has only its files */
const twoLooks = (name: string) => collectTwoLooks(name, { runTool: async () => null });

const value = (samples: Sample[], name: string, instance?: string) =>
  samples.find((s) => s.name === name && (instance === undefined || s.instance === instance))?.value;
const names = (samples: Sample[]) => new Set(samples.map((s) => s.name));

describe('collectors on an aarch64 host (Raspberry Pi class, Debian 12)', () => {
  it('measures cpu, memory, swap, load, OOM kills, disks, disk IO, network, RAID, temperature and reboot-required', async () => {
    const samples = await twoLooks('aarch64-pi');
    assert.equal(value(samples, 'cpu.usage_pct'), 40);
    assert.equal(value(samples, 'cpu.iowait_pct'), 10);
    assert.equal(value(samples, 'cpu.steal_pct'), 0);
    assert.equal(value(samples, 'mem.used_pct'), 50);
    assert.equal(value(samples, 'swap.used_pct'), 50);
    assert.equal(value(samples, 'mem.oom_kills'), 1, 'kills since the last look, not since boot');
    assert.deepEqual([value(samples, 'load.1'), value(samples, 'load.5'), value(samples, 'load.15')], [0.5, 1, 1.5]);
    assert.equal(value(samples, 'load.per_core_5'), 0.25);
    assert.equal(value(samples, 'disk.used_pct', '/'), 77.19, 'as df counts it: reserved blocks show as used');
    assert.equal(value(samples, 'disk.inodes_used_pct', '/'), 10);
    assert.equal(value(samples, 'disk.readonly', '/'), 0);
    assert.equal(value(samples, 'disk.readonly', '/boot/firmware'), 0, 'read-only from the first look: by design');
    assert.equal(value(samples, 'disk.inodes_used_pct', '/boot/firmware'), undefined, 'vfat has no inodes to count');
    assert.equal(value(samples, 'disk.used_pct', '/srv/backup'), 94.74);
    assert.equal(value(samples, 'disk.io_util_pct', 'mmcblk0'), 50);
    assert.equal(value(samples, 'disk.io_util_pct', 'md0'), 10);
    assert.equal(value(samples, 'disk.io_util_pct', 'mmcblk0p2'), undefined, 'partitions are not counted twice');
    assert.equal(value(samples, 'disk.io_util_pct', 'loop0'), undefined);
    assert.equal(value(samples, 'net.rx_bps', 'eth0'), 2_000_000, 'bits per second');
    assert.equal(value(samples, 'net.tx_bps', 'eth0'), 1_000_000);
    assert.equal(value(samples, 'net.drops_ps', 'eth0'), 20);
    assert.equal(value(samples, 'net.errors_ps', 'eth0'), 0);
    assert.equal(value(samples, 'net.up', 'eth0'), 1);
    assert.equal(value(samples, 'net.up', 'wlan0'), 0);
    assert.equal(value(samples, 'net.up', 'lo'), undefined, 'the loopback is not watched');
    assert.equal(value(samples, 'raid.degraded', 'md0'), 1);
    assert.equal(value(samples, 'temp.max_c', 'cpu_thermal/hwmon0'), 61.34);
    assert.equal(value(samples, 'uptime.s'), 86400);
    assert.equal(value(samples, 'proc.zombies'), 1);
    assert.equal(value(samples, 'system.reboot_required'), 1);
    assert.equal(value(samples, 'conntrack.used_pct'), undefined, 'no conntrack module: left out, not 0');
  });

  it('names the host as the report and the installer do', async () => {
    const facts = await hostFacts(fixtureHost(loadFixture('aarch64-pi')), 'arm64');
    assert.deepEqual(facts, {
      hostname: 'pi-gateway',
      os: 'Debian GNU/Linux 12 (bookworm)',
      kernel: '6.6.51+rpt-rpi-v8',
      arch: 'aarch64',
      cores: 4,
    });
  });
});

describe('collectors in a container', () => {
  it('reports the overlay root, skips bind-mounted files and pseudo file systems, and leaves out what a container cannot tell', async () => {
    const samples = await twoLooks('container');
    assert.equal(value(samples, 'disk.used_pct', '/'), 52.38, "the container's own root is its disk");
    assert.equal(value(samples, 'disk.inodes_used_pct', '/'), 25);
    for (const file of ['/etc/resolv.conf', '/etc/hostname'])
      assert.equal(value(samples, 'disk.used_pct', file), undefined, `${file} is a bind-mounted file, no disk`);
    assert.equal(
      value(samples, 'disk.readonly', '/var/lib/app data'),
      0,
      'octal escapes are read; read-only by design',
    );
    for (const absent of [
      'swap.used_pct',
      'raid.degraded',
      'temp.max_c',
      'system.reboot_required',
      'conntrack.used_pct',
    ])
      assert.ok(!names(samples).has(absent), `${absent} is left out`);
    assert.equal(value(samples, 'cpu.steal_pct'), 4.26);
    assert.equal(value(samples, 'net.rx_bps', 'eth0'), 16_000);
    assert.equal(value(samples, 'fd.used_pct'), 0.05);
  });

  it('reads mount tables as node_exporter would', () => {
    const mounts = watchedMounts(
      'overlay / overlay rw 0 0\n/dev/sda1 /data ext4 ro 0 0\nshm /dev/shm tmpfs rw 0 0\n/dev/sdb /var/lib/docker/volumes/x ext4 rw 0 0\noverlay /srv/other overlay rw 0 0\n',
    );
    assert.deepEqual(mounts, [
      { device: 'overlay', path: '/', type: 'overlay', readonly: false },
      { device: '/dev/sda1', path: '/data', type: 'ext4', readonly: true },
    ]);
    assert.deepEqual(
      [...degradedArrays('md1 : active raid5 sdc[2] sdb[1]\n   1 blocks [3/2] [UU_]\n').entries()],
      [['md1', 1]],
    );
  });
});

describe('collectors on the x86_64 VM this was recorded on', () => {
  it('gives every core metric, and a report the server accepts as it is', async () => {
    const samples = await twoLooks('x86_64-vm');
    for (const name of [
      'cpu.usage_pct',
      'mem.used_pct',
      'load.per_core_5',
      'disk.used_pct',
      'uptime.s',
      'fd.used_pct',
      'net.up',
    ])
      assert.ok(names(samples).has(name), `${name} is there`);
    assert.ok(value(samples, 'disk.used_pct', '/') !== undefined, 'the root file system');
    const body = { agent: { version: '0.1.0' }, reports: [{ ts: new Date().toISOString(), metrics: samples }] };
    assert.doesNotThrow(() => agentBodySchema.parse(body), 'the shared report schema accepts it');
  });
});
