import type { ChartData, SeriesName } from '@contracts/systems';

/** A series a system reports (GET /api/systems/:id/series): a metric name and its instance ('' when the metric has none). */
export type SeriesKey = SeriesName;

/** The series of one chart: every metric whose name starts with `family` and a dot. */
export interface Family {
  key: string;
  label: string;
  series: SeriesKey[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const RANGES = [
  { key: '1h', label: '1 h', ms: HOUR },
  { key: '6h', label: '6 h', ms: 6 * HOUR },
  { key: '24h', label: '24 h', ms: DAY },
  { key: '7d', label: '7 d', ms: 7 * DAY },
  { key: '30d', label: '30 d', ms: 30 * DAY },
  { key: '90d', label: '90 d', ms: 90 * DAY },
  { key: '400d', label: '400 d', ms: 400 * DAY },
] as const;

export type ChartRange = (typeof RANGES)[number]['key'];

export const DEFAULT_RANGE: ChartRange = '24h';

/** The window a chart asks for: the last `range` up to `now` (epoch ms). */
export function rangeWindow(range: ChartRange, now: number): { from: number; to: number } {
  const span = RANGES.find((r) => r.key === range)?.ms ?? DAY;
  return { from: now - span, to: now };
}

// Names for the families of the metric catalogue (contracts.md "Agent protocol"); others are shown as they come.
const FAMILY_LABELS: Record<string, string> = {
  cpu: 'CPU',
  load: 'Load',
  mem: 'Memory',
  swap: 'Swap',
  disk: 'Disk',
  raid: 'RAID',
  net: 'Network',
  conntrack: 'Connection tracking',
  services: 'Services',
  service: 'Service units',
  proc: 'Processes',
  fd: 'File descriptors',
  time: 'Clock',
  uptime: 'Uptime',
  updates: 'Updates',
  system: 'System',
  temp: 'Temperature',
  cert: 'Certificates',
  backup: 'Backups',
  agent: 'Agent',
};

// The catalogue's order, roughly by how often an operator looks; unknown families follow alphabetically.
const FAMILY_ORDER = Object.keys(FAMILY_LABELS);

/** The family of a metric name: the part before the first dot ("disk.used_pct" → "disk"). */
export function familyOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? name : name.slice(0, dot);
}

function familyRank(key: string): number {
  const rank = FAMILY_ORDER.indexOf(key);
  return rank < 0 ? FAMILY_ORDER.length : rank;
}

/** Groups series into one chart per family, in catalogue order, each family's series by name then instance. */
export function groupFamilies(series: readonly SeriesKey[]): Family[] {
  const families = new Map<string, SeriesKey[]>();
  for (const key of series) {
    const family = familyOf(key.name);
    families.set(family, [...(families.get(family) ?? []), key]);
  }
  return [...families.entries()]
    .sort(([a], [b]) => familyRank(a) - familyRank(b) || a.localeCompare(b))
    .map(([key, list]) => ({
      key,
      label: FAMILY_LABELS[key] ?? key.charAt(0).toUpperCase() + key.slice(1),
      series: [...list].sort(
        (a, b) =>
          a.name.localeCompare(b.name, undefined, { numeric: true }) ||
          a.instance.localeCompare(b.instance, undefined, { numeric: true }),
      ),
    }));
}

/** Equal when both group the same series the same way (a reload that changed nothing keeps the charts). */
export function sameFamilies(a: readonly Family[], b: readonly Family[]): boolean {
  const signature = (families: readonly Family[]) =>
    JSON.stringify(families.map((f) => [f.key, f.series.map((s) => [s.name, s.instance])]));
  return signature(a) === signature(b);
}

/** A legend label: the metric without its family, then the instance ("used_pct · /var"). */
export function seriesLabel(key: SeriesKey): string {
  const family = familyOf(key.name);
  const metric = key.name.length > family.length ? key.name.slice(family.length + 1) : key.name;
  return key.instance ? `${metric} · ${key.instance}` : metric;
}

/** Unit read from the metric name's suffix; series with different units get different scales. */
export function unitOf(name: string): string {
  if (name.endsWith('_pct')) return '%';
  if (name.endsWith('_bps')) return 'bps';
  if (name.endsWith('_ps')) return '/s';
  if (name.endsWith('_ms')) return 'ms';
  if (name.endsWith('_c')) return '°C';
  if (name.endsWith('_h')) return 'h';
  if (name.endsWith('.s')) return 's';
  return '';
}

const SOURCE_LABELS = { raw: 'raw samples', '5m': '5-minute rollups', '1h': 'hourly rollups' } as const;

/** "raw samples, 2-minute buckets" — the source the server picked for the range and the width of one point. */
export function sourceLabel(source: keyof typeof SOURCE_LABELS, bucketSeconds: number): string {
  return `${SOURCE_LABELS[source]}, ${bucketWidth(bucketSeconds)} per point`;
}

function bucketWidth(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
  ];
  const exact = units.find(([size]) => seconds >= size && seconds % size === 0);
  if (exact) return `${seconds / exact[0]} ${exact[1]}`;
  if (seconds < 120) return `${seconds} s`;
  // Raw buckets are sized to keep ~1000 points (87 s, 605 s…): round those for reading.
  const [size, unit] = units.find(([size]) => seconds >= 2 * size) ?? units[2];
  return `about ${Math.round(seconds / size)} ${unit}`;
}

/** GET /api/systems/:id/metrics (contracts/systems.ts). */
export type MetricAnswer = ChartData;
/** `[epochMs, avg, min, max]` of one bucket. */
export type MetricPoint = MetricAnswer['points'][number];
export type MetricSource = MetricAnswer['source'];

/** The samples of one series over a chart's window. */
export interface SeriesData extends SeriesKey, MetricAnswer {}

/** What one chart shows: its series over the same window. */
export interface FamilyData {
  from: number;
  to: number;
  series: SeriesData[];
}
