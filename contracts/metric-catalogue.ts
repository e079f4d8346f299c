/**
 * The metric catalogue: for each metric the agent reports (agent/src/collectors), a human
 * label, its unit and its kind, and what its instance is ("Filesystem /srv"). The one place that
 * turns metric names into words: alert texts (backend), rules, charts and lists (console) read it.
 */
import { CHECK_METRICS } from './check-metrics.js';
import { SCRIPT_METRICS } from './script-metrics.js';
import type { Operator } from './rules.js';

/** How a value is read and formatted. flag: 0 or 1 with a phrase for each. */
export type MetricKind =
  | 'percent'
  | 'flag'
  | 'count'
  | 'rate'
  | 'bits_per_second'
  | 'bytes'
  | 'bytes_per_second'
  | 'seconds'
  | 'milliseconds'
  | 'hours'
  | 'days'
  | 'celsius'
  | 'ratio';

export interface MetricInfo {
  /** "Disk used", "Load per core, 5 min". */
  label: string;
  /** Shown after a value ("%", "bit/s"); '' for plain numbers. */
  unit: string;
  kind: MetricKind;
  /**
   * The chart a system page draws it in ("Network traffic"): one kind and unit per chart, so rates
   * stay apart from counts and a percent axis carries percentages only. Flags go to the status strip.
   */
  chart: string;
  /** What the instance names ("Filesystem" for disk.readonly{/srv}); absent: the metric has none. */
  instance?: string;
  /** Joins label and instance in a sentence ("Disk used on /srv", "Backup age of nightly"); default "on". */
  preposition?: string;
  /**
   * For flags: what holds when the value is 1, and when it is 0 ("is read-only", "is writable"), and
   * which of the two is the problem.
   */
  flag?: { on: string; off: string; problem: 0 | 1 };
  /** Said of an instance whose value is 0, instead of "… is 0" ("No process runs that matches"). */
  zero?: string;
}

const percent = (label: string, chart: string, instance?: string): MetricInfo => ({
  label,
  unit: '%',
  kind: 'percent',
  chart,
  instance,
});
const bitsPerSecond = (label: string): MetricInfo => ({
  label,
  unit: 'bit/s',
  kind: 'bits_per_second',
  chart: 'Container network traffic',
});
const count = (label: string): MetricInfo => ({ label, unit: '', kind: 'count', chart: 'Counts' });
const STATUS = 'Status';
const flag = (label: string, on: string, off: string, problem: 0 | 1, instance?: string): MetricInfo => ({
  label,
  unit: '',
  kind: 'flag',
  chart: STATUS,
  instance,
  flag: { on, off, problem },
});

const CONTAINER = 'Container';
const bytes = (label: string, chart: string, instance: string, preposition = 'of'): MetricInfo => ({
  label,
  unit: 'B',
  kind: 'bytes',
  chart,
  instance,
  preposition,
});
const bytesPerSecond = (label: string, chart: string): MetricInfo => ({
  label,
  unit: 'B/s',
  kind: 'bytes_per_second',
  chart,
  instance: CONTAINER,
  preposition: 'of',
});

/** Containers (instance: the container's name) and processes (a process name and user, or a watched pattern). */
const CONTAINER_AND_PROCESS_METRICS: Readonly<Record<string, MetricInfo>> = {
  'container.cpu_pct': {
    ...percent('Container CPU, share of its limit', 'Container CPU', CONTAINER),
    preposition: 'of',
  },
  'container.mem_pct': {
    ...percent('Container memory, share of its limit', 'Container memory', CONTAINER),
    preposition: 'of',
  },
  'container.mem_used_bytes': bytes('Container memory used', 'Container memory bytes', CONTAINER),
  'container.mem_limit_bytes': bytes('Container memory limit', 'Container memory bytes', CONTAINER),
  'container.net_rx_bps': { ...bitsPerSecond('Container received'), instance: CONTAINER, preposition: 'by' },
  'container.net_tx_bps': { ...bitsPerSecond('Container sent'), instance: CONTAINER, preposition: 'by' },
  'container.disk_read_bytes_ps': bytesPerSecond('Container disk reads', 'Container disk activity'),
  'container.disk_write_bytes_ps': bytesPerSecond('Container disk writes', 'Container disk activity'),
  'container.restarts': {
    label: 'Container restarts',
    unit: '',
    kind: 'count',
    chart: 'Container restarts',
    instance: CONTAINER,
    preposition: 'of',
  },
  'container.restarts_recent': {
    label: 'Recent container restarts',
    unit: '',
    kind: 'count',
    chart: 'Container restarts',
    instance: CONTAINER,
    preposition: 'of',
  },
  'container.uptime_s': {
    label: 'Container up for',
    unit: 's',
    kind: 'seconds',
    chart: 'Container uptime',
    instance: CONTAINER,
    preposition: 'of',
  },
  'container.running': flag('Container running', 'is running', 'is not running', 0, CONTAINER),
  'container.healthy': flag('Container healthy', 'is healthy', 'is unhealthy', 0, CONTAINER),
  'container.exited_unexpectedly': flag(
    'Container exited unexpectedly',
    'stopped on its own while it was running',
    'did not stop on its own',
    1,
    CONTAINER,
  ),
  'process.cpu_pct': { ...percent('Process CPU, share of one CPU', 'Top processes CPU', 'Process'), preposition: 'of' },
  'process.rss_bytes': bytes('Process memory (RSS)', 'Top processes memory', 'Process'),
  'processes.count': {
    label: 'Processes running',
    unit: '',
    kind: 'count',
    chart: 'Watched processes',
    instance: 'Pattern',
    preposition: 'matching',
    zero: 'No process runs that matches',
  },
  'processes.cpu_pct': {
    ...percent('Watched processes CPU, share of one CPU', 'Watched processes CPU', 'Pattern'),
    preposition: 'matching',
  },
  'processes.rss_bytes': bytes('Watched processes memory (RSS)', 'Watched processes memory', 'Pattern', 'matching'),
};

// In the order a system page shows the charts: what an operator looks at first comes first.
export const METRICS: Readonly<Record<string, MetricInfo>> = {
  'cpu.usage_pct': percent('CPU used', 'CPU'),
  'cpu.iowait_pct': percent('CPU I/O wait', 'CPU'),
  'cpu.steal_pct': percent('CPU steal', 'CPU'),
  'load.1': { label: 'Load, 1 min', unit: '', kind: 'ratio', chart: 'Load' },
  'load.5': { label: 'Load, 5 min', unit: '', kind: 'ratio', chart: 'Load' },
  'load.15': { label: 'Load, 15 min', unit: '', kind: 'ratio', chart: 'Load' },
  'load.per_core_5': { label: 'Load per core, 5 min', unit: '', kind: 'ratio', chart: 'Load' },
  'mem.used_pct': percent('Memory used', 'Memory and swap'),
  'swap.used_pct': percent('Swap used', 'Memory and swap'),
  'disk.used_pct': percent('Disk used', 'Disk space', 'Filesystem'),
  'disk.inodes_used_pct': percent('Inodes used', 'Disk space', 'Filesystem'),
  'disk.io_util_pct': percent('Disk busy', 'Disk activity', 'Disk'),
  'net.rx_bps': {
    label: 'Received',
    unit: 'bit/s',
    kind: 'bits_per_second',
    chart: 'Network traffic',
    instance: 'Interface',
  },
  'net.tx_bps': {
    label: 'Sent',
    unit: 'bit/s',
    kind: 'bits_per_second',
    chart: 'Network traffic',
    instance: 'Interface',
  },
  'net.errors_ps': {
    label: 'Network errors',
    unit: '/s',
    kind: 'rate',
    chart: 'Network errors and drops',
    instance: 'Interface',
  },
  'net.drops_ps': {
    label: 'Dropped packets',
    unit: '/s',
    kind: 'rate',
    chart: 'Network errors and drops',
    instance: 'Interface',
  },
  'conntrack.used_pct': percent('Connection tracking table used', 'Kernel tables'),
  'fd.used_pct': percent('File descriptors used', 'Kernel tables'),
  'temp.max_c': {
    label: 'Temperature',
    unit: '°C',
    kind: 'celsius',
    chart: 'Temperature',
    instance: 'Sensor',
    preposition: 'of',
  },
  'time.offset_ms': { label: 'Clock offset', unit: 'ms', kind: 'milliseconds', chart: 'Clock offset' },
  'services.failed': count('Failed services'),
  'proc.zombies': count('Zombie processes'),
  'mem.oom_kills': count('Out-of-memory kills'),
  'updates.security': count('Security updates pending'),
  'agent.buffered_reports': count('Reports buffered by the agent'),
  'uptime.s': { label: 'Uptime', unit: 's', kind: 'seconds', chart: 'Uptime' },
  'cert.days_left': {
    label: 'Certificate validity',
    unit: 'days',
    kind: 'days',
    chart: 'Certificate validity',
    instance: 'Host',
    preposition: 'for',
  },
  'backup.age_h': {
    label: 'Backup age',
    unit: 'h',
    kind: 'hours',
    chart: 'Backup age',
    instance: 'Backup',
    preposition: 'of',
  },
  'disk.readonly': flag('Read-only', 'is read-only', 'is writable', 1, 'Filesystem'),
  'disk.smart_ok': flag('SMART health', 'passes its SMART health check', 'fails its SMART health check', 0, 'Disk'),
  'raid.degraded': flag('RAID degraded', 'is degraded', 'is healthy', 1, 'RAID array'),
  'net.up': flag('Link up', 'is up', 'is down', 0, 'Interface'),
  'service.active': flag('Service active', 'is active', 'is not active', 0, 'Service'),
  'system.reboot_required': flag('Reboot required', 'needs a reboot', 'needs no reboot', 1),
  ...CHECK_METRICS,
  ...CONTAINER_AND_PROCESS_METRICS,
  ...SCRIPT_METRICS,
};

/**
 * Most series one GET /api/systems/:id/metrics/batch reads (a host with many disks and units stays
 * under it; the console splits a larger page). Here, not beside the zod schema: the console imports it.
 */
export const MAX_BATCH_SERIES = 200;

/** The catalogue's entry, or the name itself as label for a metric it does not know. */
export function metricInfo(name: string): MetricInfo {
  return METRICS[name] ?? { label: name, unit: '', kind: 'ratio', chart: name };
}

const number = (value: number, digits: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });

/** Bytes in binary steps, as memory limits are set ("64 MiB"); `suffix` "/s" for a rate. */
function bytesText(value: number, suffix = ''): string {
  const steps = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let step = 0;
  let scaled = value;
  while (Math.abs(scaled) >= 1024 && step < steps.length - 1) {
    scaled /= 1024;
    step += 1;
  }
  return `${number(scaled, scaled < 10 ? 1 : 0)} ${steps[step]}${suffix}`;
}

function bits(value: number): string {
  const steps = ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s', 'Tbit/s'];
  let step = 0;
  let scaled = value;
  while (Math.abs(scaled) >= 1000 && step < steps.length - 1) {
    scaled /= 1000;
    step += 1;
  }
  return `${number(scaled, scaled < 10 ? 1 : 0)} ${steps[step]}`;
}

/** "18 d 4 h", "3 h 12 min", "42 s": the two largest units of a duration in seconds. */
export function durationText(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const whole = Math.max(0, Math.round(seconds));
  const parts = units
    .map(([size, unit], i) => [Math.floor((i === 0 ? whole : whole % units[i - 1]![0]) / size), unit] as const)
    .filter(([count]) => count > 0);
  if (parts.length === 0) return '0 s';
  return parts
    .slice(0, 2)
    .map(([count, unit]) => `${count} ${unit}`)
    .join(' ');
}

/** A value of `name` with its unit, as a person reads it ("93.5 %", "12.4 Mbit/s", "18 d 4 h"). */
export function formatMetricValue(name: string, value: number): string {
  const info = metricInfo(name);
  switch (info.kind) {
    case 'percent':
      return `${number(value, 1)} %`;
    case 'bits_per_second':
      return bits(value);
    case 'bytes':
      return bytesText(value);
    case 'bytes_per_second':
      return bytesText(value, '/s');
    case 'seconds':
      return durationText(value);
    case 'days':
      return `${number(value, 1)} ${Math.abs(value) === 1 ? 'day' : 'days'}`;
    case 'count':
    case 'flag':
      return number(value, 0);
    default:
      return info.unit ? `${number(value, 2)} ${info.unit}` : number(value, 2);
  }
}

/** A series as a chart's legend names it: "Load, 1 min", "SMART health · sda", "Received · eth0". */
export function seriesLabel(name: string, instance: string): string {
  const { label } = metricInfo(name);
  return instance ? `${label} · ${instance}` : label;
}

const compact = [
  new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 }),
  new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }),
];

/** A tick of a chart's axis, short: "50 %", "12 Mbit/s", "3 d", "1.2K". */
export function axisValue(name: string, value: number): string {
  const info = metricInfo(name);
  switch (info.kind) {
    case 'bits_per_second':
      return bits(value).replace(/\.0 /, ' ');
    case 'bytes':
      return bytesText(value).replace(/\.0 /, ' ');
    case 'bytes_per_second':
      return bytesText(value, '/s').replace(/\.0 /, ' ');
    case 'seconds':
      return durationText(value);
    case 'percent':
      return `${compact[1]!.format(value)} %`;
    default: {
      const text = compact[Math.abs(value) < 10 ? 0 : 1]!.format(value);
      return info.unit ? `${text} ${info.unit}` : text;
    }
  }
}

/** A flag's value in words ("is up", "fails its SMART health check") and whether it is the problem. */
export function flagState(name: string, value: number): { text: string; problem: boolean } | null {
  const { flag } = metricInfo(name);
  if (!flag || (value !== 0 && value !== 1)) return null;
  return { text: value === 1 ? flag.on : flag.off, problem: value === flag.problem };
}

const OPERATOR_WORDS: Record<Operator, string> = {
  '>': 'above',
  '>=': 'at or above',
  '<': 'below',
  '<=': 'at or below',
  '==': 'equal to',
  '!=': 'not',
};

export interface MetricCondition {
  metric: string;
  instance: string;
  value: number;
  operator: Operator;
  threshold: number;
  /** The rule compares |value| (clock offset can go either way). */
  absolute?: boolean;
}

/**
 * An alert on a metric in words: "Filesystem /srv is read-only", "Disk used on /srv is 93.5 %
 * (above 90 %)", "Clock offset is -2,500 ms (beyond ±2,000 ms)".
 */
export function metricAlertText(c: MetricCondition): string {
  const info = metricInfo(c.metric);
  const where = c.instance ? `${info.instance ?? ''} ${c.instance}`.trim() : '';
  if (info.flag && (c.value === 0 || c.value === 1)) {
    const subject = where || (c.metric === 'system.reboot_required' ? 'The system' : info.label);
    return `${subject} ${c.value === 1 ? info.flag.on : info.flag.off}`;
  }
  if (info.zero && c.value === 0 && c.instance) return `${info.zero} ${c.instance}`;
  const on = c.instance ? ` ${info.preposition ?? 'on'} ${c.instance}` : '';
  const limit = c.absolute
    ? `beyond ±${formatMetricValue(c.metric, c.threshold)}`
    : `${OPERATOR_WORDS[c.operator]} ${formatMetricValue(c.metric, c.threshold)}`;
  return `${info.label}${on} is ${formatMetricValue(c.metric, c.value)} (${limit})`;
}
