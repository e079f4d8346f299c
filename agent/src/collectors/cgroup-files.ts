/**
 * A running container's figures from the kernel's own files instead of the engine's one-shot stats
 * answer (one HTTP request and a 4–5 kB JSON answer per container each collection): its cgroup's
 * CPU, memory and block I/O counters under /sys/fs/cgroup, and its network namespace's interfaces in
 * /proc/<pid>/net/dev. The engine's inspection gives the container's main pid; /proc/<pid>/cgroup
 * gives its cgroup, taken only when the path names the container's full id (docker-<id>.scope,
 * /docker/<id>, libpod-<id>.scope…): a pid of another pid namespace (this agent in a container) or
 * a pid the kernel has given to another process never reads the wrong cgroup.
 *
 * The answer has the engine's stats shape with the same counters the engine reads from the same
 * files, so the series are computed once (container-figures.ts) whichever way they came. Small
 * synchronous reads, as the other /proc readers do (decisions.md). Anything not readable gives
 * null or a reason, and the collector asks the engine for that container instead.
 */
import { readFile, type Read } from '../kept-files.js';
import type { Stats } from './container-figures.js';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** A container's cgroup directories: cgroup v2's one, or cgroup v1's one per controller. */
export type Place = { version: 2; dir: string } | { version: 1; cpuacct: string; memory: string; blkio: string | null };

/** Each line of /proc/<pid>/cgroup whose path names `id`: hierarchy "0" with no controllers is v2. */
function pathsNaming(text: string, id: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const path = line.slice(second + 1);
    // a path above this agent's own cgroup namespace (`/../…`) is not under its /sys/fs/cgroup
    if (!path.includes(id) || path.includes('/..')) continue;
    const controllers = line.slice(first + 1, second);
    if (line.slice(0, first) === '0' && controllers === '') paths.set('', path);
    else for (const controller of controllers.split(',')) paths.set(controller, path);
  }
  return paths;
}

/**
 * The cgroup of the container `id` whose main process is `pid`, or why it cannot be read: only a
 * path naming the container's full id (64 hex digits) is accepted.
 */
export function placeOf(pid: number, id: string, read: Read = readFile): Place | string {
  if (!/^[0-9a-f]{64}$/.test(id) || !(pid > 0)) return 'the engine gives no full id and main pid';
  const text = read(`/proc/${pid}/cgroup`);
  if (text === null) return `/proc/${pid}/cgroup is not readable (another pid namespace, or the process is gone)`;
  const paths = pathsNaming(text, id);
  const v2 = paths.get('');
  if (v2 !== undefined && read(`${CGROUP_ROOT}${v2}/memory.current`) !== null)
    return { version: 2, dir: `${CGROUP_ROOT}${v2}` };
  const cpuacct = paths.get('cpuacct');
  const memory = paths.get('memory');
  if (cpuacct !== undefined && memory !== undefined) {
    const place = {
      version: 1 as const,
      cpuacct: `${CGROUP_ROOT}/cpuacct${cpuacct}`,
      memory: `${CGROUP_ROOT}/memory${memory}`,
      blkio: paths.has('blkio') ? `${CGROUP_ROOT}/blkio${paths.get('blkio')}` : null,
    };
    if (read(`${place.cpuacct}/cpuacct.usage`) !== null && read(`${place.memory}/memory.usage_in_bytes`) !== null)
      return place;
  }
  if (paths.size === 0) return `the cgroup of pid ${pid} does not name the container's id`;
  return `the container's cgroup files under ${CGROUP_ROOT} are not readable`;
}

/** A number from a flat-keyed file (`key value` lines: cpu.stat, memory.stat). */
export function keyed(text: string, key: string): number | null {
  const at = text.startsWith(`${key} `) ? 0 : text.indexOf(`\n${key} `) + 1;
  if (at === 0 && !text.startsWith(`${key} `)) return null;
  const value = Number.parseInt(text.slice(at + key.length + 1), 10);
  return Number.isFinite(value) ? value : null;
}

const whole = (text: string | null): number | null => {
  if (text === null) return null;
  const value = Number.parseInt(text, 10);
  return Number.isFinite(value) ? value : null;
};

/** Sums a counter file's read and write bytes: each match gives the direction (group 1) and bytes (group 2). */
function readWriteBytes(text: string, pattern: RegExp, readTag: string): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[1] === readTag) read += Number(match[2]);
    else write += Number(match[2]);
  }
  return { read, write };
}

/** Bytes read and written over every device: v2's io.stat (`rbytes=`, `wbytes=`). */
export const ioStatBytes = (text: string) => readWriteBytes(text, /\b([rw])bytes=(\d+)/g, 'r');

/** Bytes read and written over every device: v1's blkio `<major>:<minor> Read|Write <bytes>` lines. */
export const blkioBytes = (text: string) => readWriteBytes(text, /^\d+:\d+ (Read|Write) (\d+)$/gm, 'Read');

/** Received and sent bytes over every interface of /proc/<pid>/net/dev but the loopback. */
export function netDevBytes(text: string): { rx: number; tx: number } {
  let rx = 0;
  let tx = 0;
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim() === 'lo') continue;
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/);
    rx += Number(fields[0]) || 0;
    tx += Number(fields[8]) || 0;
  }
  return { rx, tx };
}

interface Counters {
  cpuNs: number;
  usage: number;
  inactive: number;
  limit: number;
  io: { read: number; write: number };
}

function countersV2(dir: string, read: Read): Counters | null {
  const cpu = read(`${dir}/cpu.stat`);
  const usec = cpu === null ? null : keyed(cpu, 'usage_usec');
  const usage = whole(read(`${dir}/memory.current`));
  if (usec === null || usage === null) return null;
  const max = read(`${dir}/memory.max`)?.trim();
  const io = read(`${dir}/io.stat`);
  return {
    cpuNs: usec * 1000,
    usage,
    inactive: keyed(read(`${dir}/memory.stat`) ?? '', 'inactive_file') ?? 0,
    limit: max === undefined || max === 'max' ? Infinity : Number(max),
    io: io === null ? { read: 0, write: 0 } : ioStatBytes(io),
  };
}

const BLKIO_FILES = [
  'blkio.bfq.io_service_bytes_recursive',
  'blkio.io_service_bytes_recursive',
  'blkio.throttle.io_service_bytes_recursive',
];

function countersV1(place: Extract<Place, { version: 1 }>, read: Read): Counters | null {
  const cpuNs = whole(read(`${place.cpuacct}/cpuacct.usage`));
  const usage = whole(read(`${place.memory}/memory.usage_in_bytes`));
  if (cpuNs === null || usage === null) return null;
  // the engine's order: BFQ's counts, else CFQ's, else the throttle layer's, the first the kernel keeps
  let io = { read: 0, write: 0 };
  for (const file of BLKIO_FILES) {
    const text = place.blkio === null ? null : read(`${place.blkio}/${file}`);
    if (text === null) continue;
    io = blkioBytes(text);
    break;
  }
  return {
    cpuNs,
    usage,
    inactive: keyed(read(`${place.memory}/memory.stat`) ?? '', 'inactive_file') ?? 0,
    limit: whole(read(`${place.memory}/memory.limit_in_bytes`)) ?? Infinity,
    io,
  };
}

export interface FileLook {
  place: Place;
  pid: number;
  /** Read the network namespace's interfaces (not when it shares the host's or another container's). */
  ownNetwork: boolean;
  /** The host's memory in bytes: the limit of a container without one, as the engine reports it. */
  memTotal: number;
}

/** The container's counters in the engine's stats shape, or null when its files are gone. */
export function statsFromFiles({ place, pid, ownNetwork, memTotal }: FileLook, read: Read = readFile): Stats | null {
  const counters = place.version === 2 ? countersV2(place.dir, read) : countersV1(place, read);
  if (counters === null) return null;
  const limit = Math.min(counters.limit, memTotal);
  let networks: Stats['networks'];
  if (ownNetwork) {
    const dev = read(`/proc/${pid}/net/dev`);
    if (dev === null) return null;
    const { rx, tx } = netDevBytes(dev);
    networks = { all: { rx_bytes: rx, tx_bytes: tx } };
  }
  return {
    cpu_stats: { cpu_usage: { total_usage: counters.cpuNs } },
    memory_stats: {
      usage: counters.usage,
      limit: Number.isFinite(limit) ? limit : undefined,
      stats: { inactive_file: counters.inactive },
    },
    networks,
    blkio_stats: {
      io_service_bytes_recursive: [
        { op: 'read', value: counters.io.read },
        { op: 'write', value: counters.io.write },
      ],
    },
  };
}

/** MemTotal of /proc/meminfo in bytes, or Infinity when it cannot be read. */
export function memTotalOf(read: Read = readFile): number {
  const kb = /^MemTotal:\s+(\d+) kB/m.exec(read('/proc/meminfo') ?? '')?.[1];
  return kb === undefined ? Infinity : Number(kb) * 1024;
}
