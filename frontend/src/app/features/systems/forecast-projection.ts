import type { SystemForecasts } from '@contracts/rules';
import { seriesLabel } from '@contracts/metric-catalogue';

import { ChartLine } from './chart-data';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export type ForecastLine = SystemForecasts['lines'][number];

/** A series' projection as a chart draws it: a dashed line of two points, and the chart's new end. */
export interface Projection {
  line: ChartLine;
  /** Where the dashed line ends: the crossing, or the rule's horizon when it lies beyond. */
  end: number;
  /** "Disk used on /var reaches 100 % in 2 d 6 h, around Tue 14:00", when the line reaches it. */
  text: string | null;
}

/**
 * The fitted line of `forecast` from the start of its window to where the rule stops looking: its
 * crossing of the threshold, or the horizon (a line that stays flat or shrinks is drawn to the horizon,
 * which shows it too). None without enough hours of data: the run makes no forecast of it either.
 */
export function projectionOf(forecast: ForecastLine, windowHours: number, now: number): Projection | null {
  if (!forecast.enoughData) return null;
  const through = Date.parse(forecast.through);
  const valueAt = (t: number) => forecast.level + (forecast.slopePerHour * (t - through)) / HOUR;
  const start = through - windowHours * HOUR;
  const horizon = now + forecast.horizonSeconds * 1000;
  const end = Math.max(now, forecast.projectedAt ? Math.min(Date.parse(forecast.projectedAt), horizon) : horizon);
  const key = `${forecast.metric}|${forecast.instance}`;
  const from = valueAt(start);
  const to = valueAt(end);
  return {
    line: {
      key: `${key}|trend`,
      label: `${seriesLabel(forecast.metric, forecast.instance)} · trend`,
      metric: forecast.metric,
      unit: '',
      points: [
        [start, from, from, from],
        [end, to, to, to],
      ],
      continues: key,
    },
    end,
    text: forecast.projectedAt ? forecast.text : null,
  };
}

/**
 * The projections of the chart's own lines, on ranges of a day and more (a projection days ahead
 * would squeeze an hour's chart into a sliver).
 */
export function projectionsFor(
  lines: readonly ChartLine[],
  forecasts: SystemForecasts | null,
  window: { from: number; to: number },
): Projection[] {
  if (!forecasts || window.to - window.from < DAY) return [];
  const byKey = new Map(lines.map((line) => [line.key, line]));
  return forecasts.lines.flatMap((forecast) => {
    const source = byKey.get(`${forecast.metric}|${forecast.instance}`);
    const projection = source ? projectionOf(forecast, forecasts.windowHours, window.to) : null;
    return projection ? [{ ...projection, line: { ...projection.line, unit: source!.unit } }] : [];
  });
}
