/**
 * The metric catalogue: for each metric the agent reports (agent/src/collectors), a human
 * label, its unit and its kind, and what its instance is ("Filesystem /srv"). The one place that
 * turns metric names into words: alert texts (backend), rules, charts and lists (console) read it.
 */
import type { Operator } from './rules.js';

/** How a value is read and formatted. flag: 0 or 1 with a phrase for each. */
export type MetricKind =
  | 'percent'
  | 'flag'
  | 'count'
  | 'rate'
  | 'bits_per_second'
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
  /** What the instance names ("Filesystem" for disk.readonly{/srv}); absent: the metric has none. */
  instance?: string;
  /** Joins label and instance in a sentence ("Disk used on /srv", "Backup age of nightly"); default "on". */
  preposition?: string;
  /** For flags: what holds when the value is 1, and when it is 0 ("is read-only", "is writable"). */
  flag?: { on: string; off: string };
}

const percent = (label: string, instance?: string): MetricInfo => ({ label, unit: '%', kind: 'percent', instance });
const flag = (label: string, on: string, off: string, instance?: string): MetricInfo => ({
  label,
  unit: '',
  kind: 'flag',
  instance,
  flag: { on, off },
});

export const METRICS: Readonly<Record<string, MetricInfo>> = {
  'cpu.usage_pct': percent('CPU used'),
  'cpu.iowait_pct': percent('CPU I/O wait'),
  'cpu.steal_pct': percent('CPU steal'),
  'load.1': { label: 'Load, 1 min', unit: '', kind: 'ratio' },
  'load.5': { label: 'Load, 5 min', unit: '', kind: 'ratio' },
  'load.15': { label: 'Load, 15 min', unit: '', kind: 'ratio' },
  'load.per_core_5': { label: 'Load per core, 5 min', unit: '', kind: 'ratio' },
  'mem.used_pct': percent('Memory used'),
  'mem.oom_kills': { label: 'Out-of-memory kills', unit: '', kind: 'count' },
  'swap.used_pct': percent('Swap used'),
  'disk.used_pct': percent('Disk used', 'Filesystem'),
  'disk.inodes_used_pct': percent('Inodes used', 'Filesystem'),
  'disk.readonly': flag('Read-only', 'is read-only', 'is writable', 'Filesystem'),
  'disk.io_util_pct': percent('Disk busy', 'Disk'),
  'disk.smart_ok': flag('SMART health', 'passes its SMART health check', 'fails its SMART health check', 'Disk'),
  'raid.degraded': flag('RAID degraded', 'is degraded', 'is healthy', 'RAID array'),
  'net.rx_bps': { label: 'Received', unit: 'bit/s', kind: 'bits_per_second', instance: 'Interface' },
  'net.tx_bps': { label: 'Sent', unit: 'bit/s', kind: 'bits_per_second', instance: 'Interface' },
  'net.errors_ps': { label: 'Network errors', unit: '/s', kind: 'rate', instance: 'Interface' },
  'net.drops_ps': { label: 'Dropped packets', unit: '/s', kind: 'rate', instance: 'Interface' },
  'net.up': flag('Link up', 'is up', 'is down', 'Interface'),
  'conntrack.used_pct': percent('Connection tracking table used'),
  'services.failed': { label: 'Failed services', unit: '', kind: 'count' },
  'service.active': flag('Service active', 'is active', 'is not active', 'Service'),
  'proc.zombies': { label: 'Zombie processes', unit: '', kind: 'count' },
  'fd.used_pct': percent('File descriptors used'),
  'time.offset_ms': { label: 'Clock offset', unit: 'ms', kind: 'milliseconds' },
  'uptime.s': { label: 'Uptime', unit: 's', kind: 'seconds' },
  'updates.security': { label: 'Security updates pending', unit: '', kind: 'count' },
  'system.reboot_required': flag('Reboot required', 'needs a reboot', 'needs no reboot'),
  'temp.max_c': { label: 'Temperature', unit: '°C', kind: 'celsius', instance: 'Sensor', preposition: 'of' },
  'cert.days_left': { label: 'Certificate validity', unit: 'days', kind: 'days', instance: 'Host', preposition: 'for' },
  'backup.age_h': { label: 'Backup age', unit: 'h', kind: 'hours', instance: 'Backup', preposition: 'of' },
  'agent.buffered_reports': { label: 'Reports buffered by the agent', unit: '', kind: 'count' },
};

/** The catalogue's entry, or the name itself as label for a metric it does not know. */
export function metricInfo(name: string): MetricInfo {
  return METRICS[name] ?? { label: name, unit: '', kind: 'ratio' };
}

const number = (value: number, digits: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });

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
  const on = c.instance ? ` ${info.preposition ?? 'on'} ${c.instance}` : '';
  const limit = c.absolute
    ? `beyond ±${formatMetricValue(c.metric, c.threshold)}`
    : `${OPERATOR_WORDS[c.operator]} ${formatMetricValue(c.metric, c.threshold)}`;
  return `${info.label}${on} is ${formatMetricValue(c.metric, c.value)} (${limit})`;
}
