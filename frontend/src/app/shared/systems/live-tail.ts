import { Observable, of, scan, startWith, switchMap } from 'rxjs';

import { Refreshing } from '@console/core/refresh';
import { ChartsData, MetricPoint } from './series';
import type { LiveReport } from '@contracts/live';

/** `system:<id>` message data (docs/api.md "Live channel", contracts/live.ts): one stored report. */
export type { LiveReport };

/**
 * Appends a report to a chart's data: each of its series the report carries gets the value as a point
 * (avg = min = max), the window slides to the report's time, points that fell out of it go.
 */
export function appendReport(data: ChartsData, report: LiveReport): ChartsData {
  const t = Date.parse(report.ts);
  if (!Number.isFinite(t)) return data;
  const span = data.to - data.from;
  const to = Math.max(data.to, t);
  const from = to - span;
  let changed = false;
  const series = data.series.map((line) => {
    const metric = report.metrics.find((m) => m.name === line.name && m.instance === line.instance);
    const last = line.points.at(-1);
    if (!metric || (last && last[0] >= t)) return line;
    changed = true;
    const point: MetricPoint = [t, metric.value, metric.value, metric.value];
    return { ...line, points: [...line.points.filter((p) => p[0] >= from), point] };
  });
  return changed ? { ...data, from, to, series } : data;
}

/** The chart data of each (re)load, followed by the reports that arrive live until the next load. */
export function withLiveTail(
  base$: Observable<Refreshing<ChartsData>>,
  reports$: Observable<LiveReport>,
): Observable<Refreshing<ChartsData>> {
  return base$.pipe(
    switchMap((state) =>
      state.state !== 'ready'
        ? of(state)
        : reports$.pipe(
            scan((current, report) => ({ ...current, value: appendReport(current.value, report) }), state),
            startWith(state),
          ),
    ),
  );
}
