import { metricInfo, METRICS } from '@contracts/metric-catalogue';
import type { ChartBatch, SeriesName } from '@contracts/systems';

/** A series a system reports (GET /api/systems/:id/series): a metric name and its instance ('' when the metric has none). */
export type SeriesKey = SeriesName;

/** The series of one chart: those the metric catalogue draws in one chart (one kind and unit), or the flags' status strip. */
export interface ChartGroup {
  /** The chart's title, unique on a page ("Network traffic"). */
  key: string;
  /** The flags (0/1) drawn as a status strip rather than as lines. */
  status: boolean;
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

// The catalogue's order; metrics it does not know follow, by name.
const METRIC_ORDER = Object.keys(METRICS);
const metricRank = (name: string): number => {
  const rank = METRIC_ORDER.indexOf(name);
  return rank < 0 ? METRIC_ORDER.length : rank;
};

/**
 * Groups series into charts as the metric catalogue says (each chart one kind and unit), the status
 * strip of the flags first, then the charts in catalogue order; in a chart, series by metric then instance.
 */
export function groupCharts(series: readonly SeriesKey[]): ChartGroup[] {
  const sorted = [...series].sort(
    (a, b) =>
      metricRank(a.name) - metricRank(b.name) ||
      a.name.localeCompare(b.name) ||
      a.instance.localeCompare(b.instance, undefined, { numeric: true }),
  );
  const charts = new Map<string, ChartGroup>();
  for (const key of sorted) {
    const info = metricInfo(key.name);
    const chart = charts.get(info.chart) ?? { key: info.chart, status: info.kind === 'flag', series: [] };
    chart.series.push(key);
    charts.set(info.chart, chart);
  }
  const groups = [...charts.values()];
  return [...groups.filter((g) => g.status), ...groups.filter((g) => !g.status)];
}

/** Equal when both group the same series the same way (a reload that changed nothing keeps the charts). */
export function sameCharts(a: readonly ChartGroup[], b: readonly ChartGroup[]): boolean {
  const signature = (groups: readonly ChartGroup[]) =>
    JSON.stringify(groups.map((g) => [g.key, g.series.map((s) => [s.name, s.instance])]));
  return signature(a) === signature(b);
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

/** GET /api/systems/:id/metrics/batch (contracts/systems.ts). */
export type ChartAnswer = ChartBatch;
/** `[epochMs, avg, min, max]` of one bucket. */
export type MetricPoint = ChartBatch['series'][number]['points'][number];
export type MetricSource = ChartBatch['source'];

/** The samples of one series over the page's window. */
export interface SeriesData extends SeriesKey {
  points: readonly MetricPoint[];
}

/** What a system page's charts show: every series over the same window, from one source. */
export interface ChartsData {
  from: number;
  to: number;
  source: MetricSource;
  bucketSeconds: number;
  series: SeriesData[];
}
