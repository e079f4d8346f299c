import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { durationText, flagState, metricInfo, seriesLabel } from '@contracts/metric-catalogue';

import { SeriesData } from '@console/shared/systems/series';

/** A stretch of a flag's strip, in per mille of the window. */
interface Segment {
  x: number;
  width: number;
  state: 'ok' | 'problem' | 'mixed';
}

interface StripRow {
  key: string;
  label: string;
  /** The newest value in words ("is up"). */
  now: string;
  problem: boolean;
  segments: Segment[];
  /** For screen readers: the state now and how long it was a problem in the window. */
  summary: string;
}

// A report arrives every 30 s by default: buckets closer than this belong to one stretch.
const JOIN_MS = 150_000;

/** A bucket's state: the flag's problem value throughout, never, or part of the bucket. */
function stateOf(name: string, min: number, max: number): Segment['state'] {
  const problem = metricInfo(name).flag?.problem ?? 1;
  if (min === max) return min === problem ? 'problem' : 'ok';
  return 'mixed';
}

/** The stretches of one flag over [from, to]: neighbouring buckets of one state joined, gaps left empty. */
export function stripSegments(series: SeriesData, from: number, to: number, bucketMs: number): Segment[] {
  const span = Math.max(1, to - from);
  const width = Math.max(bucketMs, 1);
  const stretches: { start: number; end: number; state: Segment['state'] }[] = [];
  for (const [t, , min, max] of series.points) {
    const state = stateOf(series.name, min, max);
    const last = stretches.at(-1);
    if (last && last.state === state && t - last.end <= Math.max(JOIN_MS, 2 * width)) last.end = t + width;
    else {
      if (last && t - last.end <= Math.max(JOIN_MS, 2 * width)) last.end = t;
      stretches.push({ start: t, end: t + width, state });
    }
  }
  return stretches.map(({ start, end, state }) => {
    const x = Math.max(0, ((start - from) / span) * 1000);
    return { x, width: Math.max(2, Math.min(1000, ((end - from) / span) * 1000) - x), state };
  });
}

/**
 * Flags (0/1: a link up, a filesystem read-only, SMART health) as a status strip: one row per series
 * with its state now in words and a bar over the window, green where all is well, red where the flag
 * showed the problem, amber where a bucket held both. Never a line on a percent axis.
 */
@Component({
  selector: 'argus-chart-status-strip',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <ul class="rows" [attr.aria-label]="label()">
      @for (row of rows(); track row.key) {
        <li class="row" data-testid="status-row">
          <span class="name">{{ row.label }}</span>
          <span class="now" [class.problem]="row.problem">{{ row.now }}</span>
          <svg class="bar" viewBox="0 0 1000 12" preserveAspectRatio="none" role="img" [attr.aria-label]="row.summary">
            @for (segment of row.segments; track $index) {
              <rect [attr.x]="segment.x" [attr.width]="segment.width" y="0" height="12" [attr.class]="segment.state" />
            }
          </svg>
        </li>
      }
    </ul>
  `,
  styles: `
    :host {
      display: block;
    }
    .rows {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(min(100%, 300px), 1fr));
      gap: 12px 24px;
    }
    .row {
      display: grid;
      grid-template-columns: minmax(0, 1fr) auto;
      gap: 2px 12px;
      font: var(--mat-sys-body-small);
    }
    .name {
      overflow-wrap: anywhere;
    }
    .now {
      color: var(--mat-sys-on-surface-variant);
      text-align: end;
    }
    .now.problem {
      color: var(--mat-sys-error);
      font-weight: 600;
    }
    .bar {
      grid-column: 1 / -1;
      width: 100%;
      height: 10px;
      border-radius: 2px;
      background: var(--mat-sys-surface-container-high);
    }
    .ok {
      fill: var(--argus-ok-icon);
    }
    .problem {
      fill: var(--mat-sys-error);
    }
    .mixed {
      fill: var(--argus-chart-3);
    }
  `,
})
export class ChartStatusStrip {
  readonly series = input.required<readonly SeriesData[]>();
  readonly from = input.required<number>();
  readonly to = input.required<number>();
  readonly bucketSeconds = input.required<number>();
  /** What the strip shows, for screen readers ("Status over the last 24 h"). */
  readonly label = input('Status');

  protected readonly rows = computed<StripRow[]>(() =>
    this.series().map((series) => {
      const label = seriesLabel(series.name, series.instance);
      const last = series.points.at(-1);
      const state = last ? flagState(series.name, Math.round(last[1])) : null;
      const segments = stripSegments(series, this.from(), this.to(), this.bucketSeconds() * 1000);
      const problemMs = segments
        .filter((s) => s.state !== 'ok')
        .reduce((sum, s) => sum + (s.width / 1000) * (this.to() - this.from()), 0);
      const history = problemMs > 0 ? `a problem for about ${durationText(problemMs / 1000)}` : 'no problem';
      return {
        key: `${series.name}|${series.instance}`,
        label,
        now: state?.text ?? '—',
        problem: state?.problem ?? false,
        segments,
        summary: `${label}: ${state?.text ?? 'no value'} now; ${history} in this range`,
      };
    }),
  );
}
