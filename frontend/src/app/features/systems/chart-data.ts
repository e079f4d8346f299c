import type uPlot from 'uplot';

import { formatMetricValue } from '@contracts/metric-catalogue';

import { MetricPoint } from '@console/shared/systems/series';

/** One line of a chart: its average, drawn over a band from its minimum to its maximum. */
export interface ChartLine {
  /** Stable identity ("disk.used_pct|/var"): the legend keeps a hidden line hidden across reloads. */
  key: string;
  /** "Disk used · /var", from the metric catalogue. */
  label: string;
  /** The metric name: its kind formats the values and the axis. */
  metric: string;
  /** Lines of one unit share a scale. */
  unit: string;
  points: readonly MetricPoint[];
  /** A forecast's projection of the line with this key: dashed, in its colour, its two points joined. */
  continues?: string;
}

/** The colour index of line `i`: a projection takes the colour of the line it continues. */
export function colorIndex(lines: readonly ChartLine[], i: number): number {
  const continues = lines[i]?.continues;
  const source = continues === undefined ? -1 : lines.findIndex((line) => line.key === continues);
  return source >= 0 ? source : i;
}

/** Columns of a line in uPlot's data: [avg, min, max] after the shared x column. */
export const avgColumn = (line: number): number => 1 + 3 * line;
export const minColumn = (line: number): number => 2 + 3 * line;
export const maxColumn = (line: number): number => 3 + 3 * line;

/**
 * uPlot wants one x column shared by every series: the union of the lines' timestamps, each line's
 * avg, min and max in columns after it, null where a line has no bucket (a gap, not a zero).
 */
export function alignLines(lines: readonly ChartLine[]): uPlot.AlignedData {
  const xs = [...new Set(lines.flatMap((line) => line.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const columns: (number | null)[][] = [];
  for (const line of lines) {
    const avg = new Array<number | null>(xs.length).fill(null);
    const min = [...avg];
    const max = [...avg];
    for (const [t, a, lo, hi] of line.points) {
      const i = index.get(t) as number;
      avg[i] = a;
      min[i] = lo;
      max[i] = hi;
    }
    columns.push(avg, min, max);
  }
  return [xs, ...columns];
}

/** A line's value with its unit, as the catalogue formats it ("93.5 %", "12.4 Mbit/s", "18 d 4 h"); "—" for none. */
export function lineValue(line: Pick<ChartLine, 'metric'>, value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? '—' : formatMetricValue(line.metric, value);
}

/** The newest value a column has, for the legend while the pointer is not over the chart. */
export function lastValue(column: readonly (number | null | undefined)[]): number | null {
  for (let i = column.length - 1; i >= 0; i--) {
    const value = column[i];
    if (value != null) return value;
  }
  return null;
}

/** "rgb(1, 2, 3)" → "rgba(1, 2, 3, alpha)"; other notations are left as they are (the band is then opaque-ish). */
export function withAlpha(color: string, alpha: number): string {
  const match = /^rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)/.exec(color);
  return match ? `rgba(${match[1]}, ${match[2]}, ${match[3]}, ${alpha})` : color;
}
