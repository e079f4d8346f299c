/**
 * One container's series from what the engine answered: its list entry (fresh every collection),
 * its inspection (kept until something changes) and its counters: the engine's one-shot stats answer,
 * or the same counters read from the container's cgroup files (cgroup-files.ts). CPU and the I/O rates
 * are deltas between this agent's two latest looks, so the engine never has to wait a second for a
 * second sample of its own (what `stream=false` without `one-shot` costs per container).
 */
import { percent, sample, type Sample } from '../sample.js';

export interface ListEntry {
  Id: string;
  Names?: string[];
  Image?: string;
  State?: string;
  Status?: string;
}

export interface Inspection {
  RestartCount?: number;
  State?: {
    Status?: string;
    ExitCode?: number;
    OOMKilled?: boolean;
    StartedAt?: string;
    Health?: { Status?: string };
    /** The main process's pid in the engine's pid namespace (0 when not running). */
    Pid?: number;
  };
  HostConfig?: { NanoCpus?: number; CpuQuota?: number; CpuPeriod?: number; NetworkMode?: string };
}

export interface Stats {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number; online_cpus?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op?: string; value?: number }[] | null };
}

/** The counters of one look, kept for the next one's deltas. */
export interface Look {
  at: number;
  cpuNs: number;
  systemNs: number | null;
  online: number;
  rx: number;
  tx: number;
  read: number;
  write: number;
}

export const nameOf = (entry: ListEntry) => (entry.Names?.[0] ?? entry.Id.slice(0, 12)).replace(/^\//, '');

/** The health the list's status text ends with: Docker writes "Up 3 minutes (unhealthy)". */
export function healthOf(entry: ListEntry, inspection: Inspection | null): 'healthy' | 'unhealthy' | null {
  const text = /\((healthy|unhealthy)\)\s*$/.exec(entry.Status ?? '')?.[1];
  const health = text ?? inspection?.State?.Health?.Status;
  return health === 'healthy' || health === 'unhealthy' ? health : null;
}

/** The CPUs a container may use: its limit (`--cpus`, or a quota), or every CPU of the host. */
function cpuLimit(inspection: Inspection | null, online: number): number {
  const host = inspection?.HostConfig;
  if (host?.NanoCpus) return host.NanoCpus / 1e9;
  if (host?.CpuQuota && host.CpuQuota > 0) return host.CpuQuota / (host.CpuPeriod || 100_000);
  return online;
}

export function lookOf(stats: Stats, now: number, hostCpus: number): Look | null {
  const cpuNs = stats.cpu_stats?.cpu_usage?.total_usage;
  if (typeof cpuNs !== 'number') return null;
  let rx = 0;
  let tx = 0;
  for (const net of Object.values(stats.networks ?? {})) {
    rx += net.rx_bytes ?? 0;
    tx += net.tx_bytes ?? 0;
  }
  let read = 0;
  let write = 0;
  for (const io of stats.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = (io.op ?? '').toLowerCase();
    if (op === 'read') read += io.value ?? 0;
    if (op === 'write') write += io.value ?? 0;
  }
  return {
    at: now,
    cpuNs,
    systemNs: stats.cpu_stats?.system_cpu_usage ?? null,
    online: stats.cpu_stats?.online_cpus || hostCpus,
    rx,
    tx,
    read,
    write,
  };
}

/** Memory as `docker stats` counts it: usage less the inactive page cache (cgroup v2, then v1). */
function memoryUsed(stats: Stats): number | null {
  const memory = stats.memory_stats;
  if (typeof memory?.usage !== 'number') return null;
  const cache = memory.stats?.['inactive_file'] ?? memory.stats?.['total_inactive_file'] ?? 0;
  return Math.max(0, memory.usage - cache);
}

/** CPU (share of its limit), memory, network and block I/O of a running container. */
export function figures(name: string, stats: Stats, now: Look, before: Look | null, inspection: Inspection | null) {
  const samples: Sample[] = [];
  const used = memoryUsed(stats);
  const limit = stats.memory_stats?.limit;
  if (used !== null) samples.push(sample('container.mem_used_bytes', used, name));
  if (typeof limit === 'number' && limit > 0) {
    samples.push(sample('container.mem_limit_bytes', limit, name));
    if (used !== null) samples.push(sample('container.mem_pct', percent(used, limit) as number, name));
  }
  if (!before || now.cpuNs < before.cpuNs) return samples;
  // elapsed CPU time of the whole host in ns per CPU: the engine's own clock when it gives one
  const elapsedNs =
    now.systemNs !== null && before.systemNs !== null && now.systemNs > before.systemNs
      ? (now.systemNs - before.systemNs) / now.online
      : (now.at - before.at) * 1e6;
  const seconds = (now.at - before.at) / 1000;
  if (elapsedNs > 0) {
    const cpu = percent(now.cpuNs - before.cpuNs, elapsedNs * cpuLimit(inspection, now.online));
    if (cpu !== null) samples.push(sample('container.cpu_pct', cpu, name));
  }
  if (seconds > 0) {
    const rate = (metric: string, a: number, b: number, scale = 1) => {
      if (a >= b) samples.push(sample(metric, ((a - b) * scale) / seconds, name));
    };
    rate('container.net_rx_bps', now.rx, before.rx, 8);
    rate('container.net_tx_bps', now.tx, before.tx, 8);
    rate('container.disk_read_bytes_ps', now.read, before.read);
    rate('container.disk_write_bytes_ps', now.write, before.write);
  }
  return samples;
}
