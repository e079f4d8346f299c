import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { FleetTrend as Trend, OverviewApi } from './overview-api';

type Point = Trend['points'][number];

export interface TrendLine {
  label: string;
  /** What the line says in words: the bars only repeat it. */
  summary: string;
  /** Bar heights in percent of the line's peak, oldest first. */
  heights: number[];
}

/** "now 1, peak 3 (5 h ago)": the peak is the latest of the highest points. */
export function summarize(points: readonly Point[], value: (point: Point) => number): string {
  if (points.length === 0) return 'no data';
  const now = value(points[points.length - 1]!);
  const peak = Math.max(...points.map(value));
  const hoursAgo = points.length - 1 - points.map(value).lastIndexOf(peak);
  if (peak === 0) return 'none in 24 h';
  const when = hoursAgo === 0 ? 'now' : `${hoursAgo} h ago`;
  return peak === now && hoursAgo === 0 ? `now ${now}, the 24 h peak` : `now ${now}, peak ${peak} (${when})`;
}

function line(label: string, points: readonly Point[], value: (point: Point) => number): TrendLine {
  const peak = Math.max(1, ...points.map(value));
  return { label, summary: summarize(points, value), heights: points.map((point) => (value(point) / peak) * 100) };
}

/** The Overview's trend: systems down and alerts open over the last 24 hours, a bar an hour, in words too. */
@Component({
  selector: 'argus-fleet-trend',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @let current = trend();
    @if (current.state === 'error') {
      <p class="form-error" role="status">The trend could not be loaded: {{ current.message }}</p>
    } @else if (current.state === 'ready') {
      <dl class="trend" data-testid="trend">
        @for (row of lines(); track row.label) {
          <div class="row">
            <dt>{{ row.label }}, 24 h</dt>
            <dd>
              <span class="bars" aria-hidden="true">
                @for (height of row.heights; track $index) {
                  <span class="bar" [style.height.%]="height"></span>
                }
              </span>
              <span class="summary">{{ row.summary }}</span>
            </dd>
          </div>
        }
      </dl>
    }
  `,
  styles: `
    .trend {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 32px;
      margin: 12px 0;
    }
    .row {
      min-width: 0;
    }
    dt {
      font: var(--mat-sys-label-medium);
      color: var(--mat-sys-on-surface-variant);
    }
    dd {
      display: flex;
      align-items: flex-end;
      gap: 8px;
      margin: 4px 0 0;
    }
    .bars {
      display: inline-flex;
      align-items: flex-end;
      gap: 1px;
      height: 24px;
      border-bottom: 1px solid var(--mat-sys-outline);
    }
    .bar {
      width: 4px;
      min-height: 1px;
      background: var(--mat-sys-primary);
    }
    .summary {
      font: var(--mat-sys-body-medium);
    }
  `,
})
export class FleetTrend {
  protected readonly trend = toSignal(inject(OverviewApi).trend$, {
    initialValue: LOADING as Refreshing<Trend>,
  });
  protected readonly lines = computed((): TrendLine[] => {
    const current = this.trend();
    if (current.state !== 'ready') return [];
    const { points } = current.value;
    return [
      line('Systems down', points, (point) => point.systemsDown),
      line('Alerts open', points, (point) => point.alertsOpen),
    ];
  });
}
