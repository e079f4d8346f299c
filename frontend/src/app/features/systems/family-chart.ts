import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { switchMap } from 'rxjs';

import { LOADING } from '../../core/loaded';
import { Refreshing } from '../../core/refresh';
import { ChartLine } from './chart-data';
import { MetricChart } from './metric-chart';
import { ChartRange, Family, RANGES, seriesLabel, sourceLabel, unitOf } from '../../shared/systems/series';
import { SystemsApi } from '../../shared/systems/systems-api';
import { FamilyData } from '../../shared/systems/series';

/** One metric family of a system (cpu, disk, net, …) as a chart, with where its points come from. */
@Component({
  selector: 'argus-family-chart',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatProgressBarModule, MetricChart],
  template: `
    <h3 class="title">{{ family().label }}</h3>
    @let state = data();
    @switch (state.state) {
      @case ('loading') {
        <mat-progress-bar mode="indeterminate" [attr.aria-label]="'Loading ' + family().label" />
      }
      @case ('error') {
        <p class="form-error" role="alert">{{ state.message }}</p>
      }
      @case ('ready') {
        <argus-metric-chart [lines]="lines()" [from]="state.value.from" [to]="state.value.to" [label]="summary()" />
        <p class="source" data-testid="source">
          Source: {{ source() }}
          @if (state.stale) {
            <span class="stale">· not refreshed: {{ state.stale }}</span>
          }
        </p>
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
    .source {
      margin: 4px 6px 0;
      color: var(--mat-sys-on-surface-variant);
      font: var(--mat-sys-body-small);
    }
    .stale {
      color: var(--mat-sys-error);
    }
  `,
})
export class FamilyChart {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();
  readonly family = input.required<Family>();
  readonly range = input.required<ChartRange>();

  private readonly request = computed(() => ({ id: this.systemId(), family: this.family(), range: this.range() }));
  protected readonly data = toSignal(
    toObservable(this.request).pipe(switchMap(({ id, family, range }) => this.api.family$(id, family.series, range))),
    { initialValue: LOADING as Refreshing<FamilyData> },
  );

  protected readonly lines = computed<ChartLine[]>(() => {
    const state = this.data();
    if (state.state !== 'ready') return [];
    return state.value.series.map((series) => ({
      key: `${series.name}|${series.instance}`,
      label: seriesLabel(series),
      unit: unitOf(series.name),
      points: series.points,
    }));
  });

  /** The sources of the family's series; they agree unless the range crossed a boundary between requests. */
  protected readonly source = computed(() => {
    const state = this.data();
    if (state.state !== 'ready' || state.value.series.length === 0) return '—';
    const labels = new Set(state.value.series.map((s) => sourceLabel(s.source, s.bucketSeconds)));
    return [...labels].join('; ');
  });

  protected readonly summary = computed(() => {
    const range = RANGES.find((r) => r.key === this.range())?.label ?? '';
    return `${this.family().label} over the last ${range}`;
  });
}
