/**
 * A simulated host: the metric catalogue of docs/protocol.md ("Metric catalogue": what the default
 * rules read) with values that drift like a real machine's (a mean-reverting
 * random walk per series), 60 samples per report. Faults bend the values:
 * a disk filling up, a CPU spike.
 */

export interface Sample {
  name: string;
  instance?: string;
  value: number;
}

type Kind = 'pct' | 'gauge' | 'counter' | 'flag';

interface Series {
  name: string;
  instance?: string;
  kind: Kind;
  mean: number;
  spread: number;
  min: number;
  max: number;
  value: number;
}

const MOUNTS = ['/', '/var', '/home'];
const DEVICES = ['sda', 'sdb', 'nvme0n1'];
const IFACES = ['eth0', 'eth1', 'bond0'];
const UNITS = ['nginx.service', 'sshd.service', 'cron.service', 'postgresql.service'];

export type HostFault = 'disk-fill' | 'cpu-spike';

/** Deterministic per host when seeded (mulberry32), so runs are comparable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type AddSeries = (
  name: string,
  kind: Kind,
  mean: number,
  spread: number,
  min: number,
  max: number,
  instance?: string,
) => void;

/** A running container's series, as the agent's containers collector sends them. */
function addContainer(add: AddSeries, name: string, r: () => number): void {
  const limit = 2 ** 30;
  add('container.running', 'flag', 1, 0, 0, 1, name);
  add('container.restarts', 'flag', 0, 0, 0, 1e6, name);
  add('container.restarts_recent', 'flag', 0, 0, 0, 1e6, name);
  add('container.exited_unexpectedly', 'flag', 0, 0, 0, 1, name);
  add('container.uptime_s', 'counter', 0, 0, 0, Number.MAX_SAFE_INTEGER, name);
  add('container.cpu_pct', 'pct', r() * 20, 3, 0, 100, name);
  add('container.mem_used_bytes', 'gauge', limit * (0.1 + r() * 0.5), limit * 0.01, 0, limit, name);
  add('container.mem_limit_bytes', 'flag', limit, 0, 0, limit, name);
  add('container.mem_pct', 'pct', 10 + r() * 50, 1, 0, 100, name);
  add('container.net_rx_bps', 'gauge', r() * 1e6, 1e5, 0, 1e10, name);
  add('container.net_tx_bps', 'gauge', r() * 1e6, 1e5, 0, 1e10, name);
  add('container.disk_read_bytes_ps', 'gauge', r() * 1e5, 1e4, 0, 1e10, name);
  add('container.disk_write_bytes_ps', 'gauge', r() * 1e5, 1e4, 0, 1e10, name);
}

export class SimulatedHost {
  private readonly series: Series[] = [];
  private readonly random: () => number;
  private readonly bootedAt: number;
  fault: HostFault | null = null;

  constructor(
    seed: number,
    readonly cores = 2 + (seed % 4) * 2,
    /** Running containers, each with the 13 series the agent sends for one (docs/protocol.md). */
    containers = 0,
  ) {
    this.random = seededRandom(seed);
    this.bootedAt = Date.now() - Math.floor(this.random() * 30 * 86_400_000);
    const r = this.random;
    const add = (name: string, kind: Kind, mean: number, spread: number, min: number, max: number, instance?: string) =>
      this.series.push({ name, kind, mean, spread, min, max, value: mean, ...(instance ? { instance } : {}) });
    add('cpu.usage_pct', 'pct', 10 + r() * 40, 8, 0, 100);
    add('cpu.iowait_pct', 'pct', r() * 4, 1.5, 0, 100);
    add('cpu.steal_pct', 'pct', r() * 2, 0.5, 0, 100);
    add('load.1', 'gauge', this.cores * 0.3, 0.4, 0, 64);
    add('load.5', 'gauge', this.cores * 0.3, 0.2, 0, 64);
    add('load.15', 'gauge', this.cores * 0.3, 0.1, 0, 64);
    add('load.per_core_5', 'gauge', 0.3, 0.05, 0, 16);
    add('mem.used_pct', 'pct', 40 + r() * 40, 2, 0, 100);
    add('mem.oom_kills', 'flag', 0, 0, 0, 0);
    add('swap.used_pct', 'pct', r() * 10, 0.5, 0, 100);
    for (const mount of MOUNTS) {
      add('disk.used_pct', 'pct', 20 + r() * 50, 0.05, 0, 100, mount);
      add('disk.inodes_used_pct', 'pct', 5 + r() * 20, 0.02, 0, 100, mount);
      add('disk.readonly', 'flag', 0, 0, 0, 1, mount);
    }
    for (const device of DEVICES) {
      add('disk.io_util_pct', 'pct', r() * 20, 4, 0, 100, device);
      add('disk.smart_ok', 'flag', 1, 0, 0, 1, device);
    }
    add('raid.degraded', 'flag', 0, 0, 0, 1, 'md0');
    for (const iface of IFACES) {
      add('net.rx_bps', 'gauge', 1e5 + r() * 5e6, 2e5, 0, 1e10, iface);
      add('net.tx_bps', 'gauge', 1e5 + r() * 3e6, 1e5, 0, 1e10, iface);
      add('net.errors_ps', 'gauge', 0, 0.05, 0, 1e6, iface);
      add('net.drops_ps', 'gauge', r(), 0.5, 0, 1e6, iface);
      add('net.up', 'flag', 1, 0, 0, 1, iface);
    }
    add('conntrack.used_pct', 'pct', r() * 20, 1, 0, 100);
    add('services.failed', 'flag', 0, 0, 0, 100);
    for (const unit of UNITS) add('service.active', 'flag', 1, 0, 0, 1, unit);
    add('proc.zombies', 'gauge', 0, 0.2, 0, 1000);
    add('fd.used_pct', 'pct', 5 + r() * 10, 0.5, 0, 100);
    add('time.offset_ms', 'gauge', 0, 3, -1e6, 1e6);
    add('uptime.s', 'counter', 0, 0, 0, Number.MAX_SAFE_INTEGER);
    add('updates.security', 'flag', Math.floor(r() * 3), 0, 0, 1000);
    add('system.reboot_required', 'flag', 0, 0, 0, 1);
    add('temp.max_c', 'gauge', 45 + r() * 15, 1, 0, 120, 'cpu');
    add('temp.max_c', 'gauge', 35 + r() * 10, 0.5, 0, 120, 'nvme0n1');
    add('cert.days_left', 'gauge', 30 + Math.floor(r() * 60), 0, -1000, 1000, 'www.example.com');
    add('cert.days_left', 'gauge', 30 + Math.floor(r() * 60), 0, -1000, 1000, 'api.example.com');
    add('backup.age_h', 'gauge', 2 + r() * 20, 0.1, 0, 10_000, 'nightly');
    add('backup.age_h', 'gauge', 2 + r() * 20, 0.1, 0, 10_000, 'offsite');
    add('agent.buffered_reports', 'gauge', 0, 0, 0, 1e6);
    for (let c = 0; c < containers; c++) addContainer(add, `app-${String(c).padStart(2, '0')}`, r);
  }

  /** The next report's samples at `now`; `buffered` is what the agent holds unsent. */
  sample(now: number, buffered = 0): Sample[] {
    return this.named(this.sampleValues(now, buffered));
  }

  /** The samples of `values` (from sampleValues): a buffer of many reports keeps only the numbers. */
  named(values: Float64Array): Sample[] {
    return this.series.map((s, i) => ({
      name: s.name,
      ...(s.instance ? { instance: s.instance } : {}),
      value: values[i] as number,
    }));
  }

  /**
   * The JSON of `named(values)`, written from each series' text made once: a simulator of thousands
   * of agents shares the machine with the server it measures, so its own CPU a report is kept small.
   */
  metricsJson(values: Float64Array): string {
    this.jsonPrefixes ??= this.series.map(
      (s, i) =>
        `${i ? ',' : ''}${JSON.stringify({ name: s.name, ...(s.instance ? { instance: s.instance } : {}) }).slice(0, -1)},"value":`,
    );
    let json = '[';
    for (let i = 0; i < values.length; i++) json += `${this.jsonPrefixes[i]}${JSON.stringify(values[i])}}`;
    return `${json}]`;
  }

  private jsonPrefixes: string[] | null = null;

  /** The next report's values at `now`, in the catalogue's order. */
  sampleValues(now: number, buffered = 0): Float64Array {
    const out = new Float64Array(this.series.length);
    for (const [i, s] of this.series.entries()) {
      if (s.kind === 'pct' || s.kind === 'gauge') {
        // mean-reverting walk: drifts, never runs away
        s.value += (s.mean - s.value) * 0.1 + (this.random() - 0.5) * 2 * s.spread;
      }
      if (this.fault === 'disk-fill' && s.name === 'disk.used_pct' && s.instance === '/var')
        s.mean = Math.min(99.5, s.mean + 0.5);
      if (this.fault === 'cpu-spike' && s.name === 'cpu.usage_pct') s.value = 96 + this.random() * 3;
      if (s.name === 'uptime.s') s.value = Math.floor((now - this.bootedAt) / 1000);
      if (s.name === 'agent.buffered_reports') s.value = buffered;
      const value = Math.min(s.max, Math.max(s.min, s.value));
      out[i] = Math.round(value * 100) / 100;
    }
    return out;
  }
}
