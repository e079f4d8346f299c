import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { ChartsData, SeriesKey } from '@console/shared/systems/series';
import { SystemsApi } from '@console/shared/systems/systems-api';
import { LoadState } from '@console/ui/load-state';
import { bytesText, isTopProcessSeries, isWatchedProcessSeries, latestValues, topProcesses } from './latest-values';
import { SystemCharts } from './system-charts';
import { percentText } from './usage-bar';

/** The agent's own default top N: each list shows as many as one list of the agent's holds by default. */
export const TOP_SHOWN = 5;

/**
 * A system's processes: the top lists of the last report (the agent's top by CPU and by memory, each
 * ranked again here, updated with every report) and the charts of the watched patterns.
 */
@Component({
  selector: 'argus-system-processes',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState, SystemCharts],
  template: `
    @if (hasTop()) {
      @let state = latest();
      <argus-load-state [state]="state" label="Loading the processes" />
      @if (state.state === 'ready') {
        <div class="lists">
          @for (list of lists(); track list.key) {
            <section [attr.aria-labelledby]="'top-' + list.key" [attr.data-list]="list.key">
              <h2 [id]="'top-' + list.key">{{ list.title }}</h2>
              @if (list.rows.length === 0) {
                <p class="empty">No process in the last report.</p>
              } @else {
                <table class="argus-table" [attr.aria-labelledby]="'top-' + list.key">
                  <thead>
                    <tr>
                      <th scope="col">Process (user)</th>
                      <th scope="col" class="number">CPU</th>
                      <th scope="col" class="number">Memory</th>
                    </tr>
                  </thead>
                  <tbody>
                    @for (row of list.rows; track row.instance) {
                      <tr>
                        <th scope="row" class="mono">{{ row.instance }}</th>
                        <td class="number">{{ percent(row.cpuPct) }}</td>
                        <td class="number">{{ bytes(row.rssBytes) }}</td>
                      </tr>
                    }
                  </tbody>
                </table>
              }
            </section>
          }
        </div>
        <p class="note">CPU is a share of one CPU, as top shows it; processes of one name and user are summed.</p>
      }
    }
    @if (hasWatched()) {
      <argus-system-charts
        [systemId]="systemId()"
        [seriesList]="chartSeries()"
        [only]="watched"
        heading="Watched processes"
        data-testid="watched-charts"
      />
    }
  `,
  styles: `
    .lists {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(min(100%, 360px), 1fr));
      gap: 24px;
    }
    h2 {
      font: var(--mat-sys-title-medium);
      margin: 16px 0 8px;
    }
    /* closer than the console's other tables: many short rows */
    .argus-table th,
    .argus-table td {
      padding: 6px 8px;
    }
    thead th {
      font: var(--mat-sys-title-small);
      color: var(--mat-sys-on-surface-variant);
    }
    tbody th {
      font-weight: normal;
      overflow-wrap: anywhere;
    }
    .number {
      text-align: right;
      font-variant-numeric: tabular-nums;
      white-space: nowrap;
    }
    .empty,
    .note {
      color: var(--mat-sys-on-surface-variant);
    }
    .note {
      font: var(--mat-sys-body-small);
    }
  `,
})
export class SystemProcesses {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();
  readonly series = input.required<SeriesKey[]>();

  protected readonly watched = isWatchedProcessSeries;
  protected readonly percent = percentText;
  protected readonly bytes = bytesText;

  private readonly top = computed(() => this.series().filter(isTopProcessSeries));
  protected readonly hasTop = computed(() => this.top().length > 0);
  protected readonly hasWatched = computed(() => this.series().some(isWatchedProcessSeries));

  private readonly request = computed(() => ({ id: this.systemId(), keys: this.top() }), {
    equal: (a, b) => a.id === b.id && JSON.stringify(a.keys) === JSON.stringify(b.keys),
  });
  protected readonly latest = toSignal(
    toObservable(this.request).pipe(switchMap(({ id, keys }) => this.api.charts$(id, keys, '1h'))),
    { initialValue: LOADING as Refreshing<ChartsData> },
  );
  protected readonly lists = computed(() => {
    const state = this.latest();
    if (state.state !== 'ready') return [];
    const latest = latestValues(state.value);
    const instances = this.top().map((key) => key.instance);
    return [
      { key: 'cpu', title: 'Top by CPU', rows: topProcesses(latest, instances, 'cpuPct', TOP_SHOWN) },
      { key: 'memory', title: 'Top by memory', rows: topProcesses(latest, instances, 'rssBytes', TOP_SHOWN) },
    ];
  });

  protected readonly chartSeries = computed((): Refreshing<SeriesKey[]> => ({ state: 'ready', value: this.series() }));
}
