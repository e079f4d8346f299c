import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { metricInfo, seriesLabel } from '@contracts/metric-catalogue';

import type { SystemForecasts } from '@contracts/rules';
import { ChartLine } from './chart-data';
import { ChartStatusStrip } from './chart-status-strip';
import { projectionsFor } from './forecast-projection';
import { MetricChart } from './metric-chart';
import { ChartGroup, ChartsData, SeriesData } from '@console/shared/systems/series';

/** One chart of a system page: the series the metric catalogue draws together, as lines or as the flags' status strip. */
@Component({
  selector: 'argus-family-chart',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ChartStatusStrip, MetricChart],
  template: `
    <h3 class="title">{{ group().key }}</h3>
    @if (group().status) {
      <argus-chart-status-strip
        [series]="series()"
        [from]="data().from"
        [to]="data().to"
        [bucketSeconds]="data().bucketSeconds"
        [label]="summary()"
      />
    } @else {
      <argus-metric-chart [lines]="drawn()" [from]="data().from" [to]="until()" [label]="summary()" />
      @for (projection of projections(); track projection.line.key) {
        @if (projection.text; as text) {
          <p class="forecast" data-testid="forecast">Trend: {{ text }}</p>
        }
      }
    }
  `,
  styles: `
    :host {
      display: block;
      min-width: 0;
      padding: 12px 16px;
      border: 1px solid var(--mat-sys-outline-variant);
      border-radius: var(--mat-sys-corner-medium);
    }
    .title {
      font: var(--mat-sys-title-small);
      margin: 0 0 8px;
    }
    .forecast {
      margin: 4px 0 0;
      font: var(--mat-sys-body-small);
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class FamilyChart {
  readonly group = input.required<ChartGroup>();
  /** The page's data: this chart takes its own series from it (those with points in the window). */
  readonly data = input.required<ChartsData>();
  /** "24 h": the range, for screen readers. */
  readonly rangeLabel = input.required<string>();
  /** The system's forecast lines: a series of this chart that has one gets its dashed projection. */
  readonly forecasts = input<SystemForecasts | null>(null);

  protected readonly series = computed<SeriesData[]>(() => seriesWithData(this.group(), this.data()));

  protected readonly lines = computed<ChartLine[]>(() =>
    this.series().map((series) => ({
      key: `${series.name}|${series.instance}`,
      label: seriesLabel(series.name, series.instance),
      metric: series.name,
      unit: metricInfo(series.name).unit,
      points: series.points,
    })),
  );

  protected readonly projections = computed(() => projectionsFor(this.lines(), this.forecasts(), this.data()));
  protected readonly drawn = computed(() => [...this.lines(), ...this.projections().map((p) => p.line)]);
  /** The chart reaches as far as its projections do. */
  protected readonly until = computed(() => Math.max(this.data().to, ...this.projections().map((p) => p.end)));

  protected readonly summary = computed(() => `${this.group().key} over the last ${this.rangeLabel()}`);
}

/** Whether the data answers every series of the chart (with points or without). */
export function seriesAnswered(group: ChartGroup, data: ChartsData): boolean {
  const asked = new Set(data.series.map((s) => `${s.name}\n${s.instance}`));
  return group.series.every((key) => asked.has(`${key.name}\n${key.instance}`));
}

/** The series of `group` that have points in `data`'s window, in the group's order. */
export function seriesWithData(group: ChartGroup, data: ChartsData): SeriesData[] {
  const byKey = new Map(data.series.map((s) => [`${s.name}\n${s.instance}`, s]));
  return group.series
    .map((key) => byKey.get(`${key.name}\n${key.instance}`))
    .filter((s): s is SeriesData => !!s && s.points.length > 0);
}
