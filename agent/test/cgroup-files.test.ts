/**
 * A container's figures from its cgroup files, on made-up trees of cgroup v2 (Docker's systemd
 * driver, Podman) and cgroup v1: the cgroup is taken only when its path names the container's full
 * id, and the counters come out in the engine's stats shape with the engine's own arithmetic
 * (memory limit "max" = the host's memory, I/O summed over devices, the loopback not counted).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  blkioBytes,
  ioStatBytes,
  keyed,
  memTotalOf,
  netDevBytes,
  placeOf,
  statsFromFiles,
} from '../src/collectors/cgroup-files.js';
import type { Read } from '../src/kept-files.js';

const ID = 'a'.repeat(40) + '0123456789abcdef01234567';
const OTHER = 'b'.repeat(64);
const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    5000      10    0    0    0     0          0         0     5000      10    0    0    0     0       0          0
  eth0:    1200      13    0    0    0     0          0         0      300       3    0    0    0     0       0          0
  eth1:      34       1    0    0    0     0          0         0       66       1    0    0    0     0       0          0
`;

const files =
  (tree: Record<string, string>): Read =>
  (path) =>
    tree[path] ?? null;

const v2Tree = (cgroup: string, dir: string) => ({
  '/proc/meminfo': 'MemTotal:        2048000 kB\nMemFree: 1 kB\n',
  '/proc/42/cgroup': `0::${cgroup}\n`,
  '/proc/42/net/dev': NET_DEV,
  [`${dir}/cpu.stat`]: 'usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n',
  [`${dir}/memory.current`]: '10485760\n',
  [`${dir}/memory.stat`]: 'anon 4096\nfile 8192\nactive_file 100\ninactive_file 2097152\n',
  [`${dir}/memory.max`]: 'max\n',
  [`${dir}/io.stat`]:
    '8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:16 rbytes=1 wbytes=2 rios=1 wios=1\n',
});

describe('a container cgroup from /proc/<pid>/cgroup', () => {
  it('takes a cgroup v2 path naming the full id: systemd scopes, Docker and Podman', () => {
    for (const cgroup of [
      `/system.slice/docker-${ID}.scope`,
      `/docker/${ID}`,
      `/machine.slice/libpod-${ID}.scope/container`,
    ]) {
      const dir = `/sys/fs/cgroup${cgroup}`;
      assert.deepEqual(placeOf(42, ID, files(v2Tree(cgroup, dir))), { version: 2, dir });
    }
  });

  it("refuses a path without the container's id: another process, another pid namespace, a reused pid", () => {
    const other = files(
      v2Tree(`/system.slice/docker-${OTHER}.scope`, `/sys/fs/cgroup/system.slice/docker-${OTHER}.scope`),
    );
    assert.match(placeOf(42, ID, other) as string, /does not name the container's id/);
    const agentItself = files({ '/proc/42/cgroup': '0::/system.slice/argus-agent.service\n' });
    assert.match(placeOf(42, ID, agentItself) as string, /does not name/);
    // an abbreviated id is not enough: the whole 64 digits must be there
    const short = files(v2Tree(`/docker/${ID.slice(0, 12)}`, `/sys/fs/cgroup/docker/${ID.slice(0, 12)}`));
    assert.match(placeOf(42, ID, short) as string, /does not name/);
    const above = files(v2Tree(`/../../docker-${ID}.scope`, `/sys/fs/cgroup/../../docker-${ID}.scope`));
    assert.match(placeOf(42, ID, above) as string, /does not name/, 'outside the agent’s own cgroup namespace');
    assert.match(placeOf(42, ID, files({})) as string, /not readable/, 'the pid is not in this /proc');
    assert.match(placeOf(0, ID, files({})) as string, /no full id and main pid/);
    assert.match(placeOf(42, ID.slice(0, 12), files({})) as string, /no full id/);
  });

  it('takes cgroup v1 controllers when the unified hierarchy holds no memory files (a hybrid host)', () => {
    const path = `/docker/${ID}`;
    const tree = {
      '/proc/7/cgroup': `4:memory:${path}\n3:blkio:${path}\n2:cpu,cpuacct:${path}\n0::${path}\n`,
      [`/sys/fs/cgroup/cpuacct${path}/cpuacct.usage`]: '123456789\n',
      [`/sys/fs/cgroup/memory${path}/memory.usage_in_bytes`]: '8192\n',
    };
    assert.deepEqual(placeOf(7, ID, files(tree)), {
      version: 1,
      cpuacct: `/sys/fs/cgroup/cpuacct${path}`,
      memory: `/sys/fs/cgroup/memory${path}`,
      blkio: `/sys/fs/cgroup/blkio${path}`,
    });
    assert.match(placeOf(7, ID, files({ '/proc/7/cgroup': tree['/proc/7/cgroup'] })) as string, /not readable/);
  });
});

describe("a container's counters from its cgroup files", () => {
  it('reads cgroup v2 in the engine’s stats shape: no limit is the host’s memory', () => {
    const dir = `/sys/fs/cgroup/system.slice/docker-${ID}.scope`;
    const tree = v2Tree(`/system.slice/docker-${ID}.scope`, dir);
    const read = files(tree);
    const place = placeOf(42, ID, read);
    assert.ok(typeof place !== 'string');
    const stats = statsFromFiles({ place, pid: 42, ownNetwork: true, memTotal: memTotalOf(read) }, read);
    assert.deepEqual(stats, {
      cpu_stats: { cpu_usage: { total_usage: 1_500_000_000 } },
      memory_stats: { usage: 10485760, limit: 2048000 * 1024, stats: { inactive_file: 2097152 } },
      networks: { all: { rx_bytes: 1234, tx_bytes: 366 } },
      blkio_stats: {
        io_service_bytes_recursive: [
          { op: 'read', value: 4097 },
          { op: 'write', value: 8194 },
        ],
      },
    });
    tree[`${dir}/memory.max`] = '67108864\n';
    const limited = statsFromFiles({ place, pid: 42, ownNetwork: false, memTotal: 2048000 * 1024 }, read);
    assert.equal(limited?.memory_stats?.limit, 67108864);
    assert.equal(limited?.networks, undefined, 'on the host’s network: no interfaces of its own');
    delete tree[`${dir}/memory.current`];
    assert.equal(statsFromFiles({ place, pid: 42, ownNetwork: true, memTotal: 1 }, read), null, 'gone');
  });

  it('reads cgroup v1: an unlimited limit is the host’s memory, BFQ’s counts before the throttle layer’s', () => {
    const place = { version: 1 as const, cpuacct: '/c', memory: '/m', blkio: '/b' };
    const tree: Record<string, string> = {
      '/c/cpuacct.usage': '5000\n',
      '/m/memory.usage_in_bytes': '4096\n',
      '/m/memory.stat': 'cache 0\ninactive_file 1024\ntotal_inactive_file 2048\n',
      '/m/memory.limit_in_bytes': '9223372036854771712\n',
      '/b/blkio.bfq.io_service_bytes_recursive': '8:0 Read 10\n8:0 Write 20\n8:0 Total 30\n8:16 Read 1\nTotal 31\n',
      '/b/blkio.throttle.io_service_bytes_recursive': '8:0 Read 999\n',
      '/proc/9/net/dev': NET_DEV,
    };
    const stats = statsFromFiles({ place, pid: 9, ownNetwork: true, memTotal: 1 << 30 }, files(tree));
    assert.equal(stats?.cpu_stats?.cpu_usage?.total_usage, 5000);
    assert.deepEqual(stats?.memory_stats, { usage: 4096, limit: 1 << 30, stats: { inactive_file: 1024 } });
    assert.deepEqual(stats?.blkio_stats?.io_service_bytes_recursive, [
      { op: 'read', value: 11 },
      { op: 'write', value: 20 },
    ]);
  });

  it('parses the small formats', () => {
    assert.equal(keyed('usage_usec 12\nuser_usec 3\n', 'usage_usec'), 12);
    assert.equal(keyed('file 1\ninactive_file 7\n', 'inactive_file'), 7);
    assert.equal(keyed('active_file 1\n', 'inactive_file'), null);
    assert.deepEqual(ioStatBytes(''), { read: 0, write: 0 });
    assert.deepEqual(blkioBytes('Total 0\n'), { read: 0, write: 0 });
    assert.deepEqual(netDevBytes(NET_DEV), { rx: 1234, tx: 366 });
    assert.equal(memTotalOf(files({})), Infinity);
  });
});
