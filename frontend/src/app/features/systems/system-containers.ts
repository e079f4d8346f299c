import { ChangeDetectionStrategy, Component, computed, effect, inject, input, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { ChartsData, SeriesKey } from '@console/shared/systems/series';
import { ContainerImage, SystemsApi } from '@console/shared/systems/systems-api';
import { LoadState } from '@console/ui/load-state';
import { CONTAINER_TABLE_METRICS, ContainerRow, containerRows, isContainerSeries, latestValues } from './latest-values';
import { SystemCharts } from '@console/shared/charts/system-charts';
import { UsageBar } from './usage-bar';
import { PICKED_TABLE_STYLES, PickName } from './picked-table';

const STATE_LABELS: Record<ContainerRow['state'], string> = {
  running: 'Running',
  unhealthy: 'Unhealthy',
  exited: 'Exited',
};

/**
 * A system's containers: a table of their newest values (the last hour's samples with every report
 * appended live) with the image each runs (as the agent last listed them), and the charts of the
 * container picked, at every range.
 */
@Component({
  selector: 'argus-system-containers',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState, PickName, SystemCharts, UsageBar],
  template: `
    @let state = latest();
    <argus-load-state [state]="state" label="Loading the containers" />
    @if (state.state === 'ready') {
      @if (rows().length === 0) {
        <p class="empty" data-testid="no-containers">No container reported in the last hour.</p>
      } @else {
        <div class="scroll">
          <table class="argus-table containers" aria-label="Containers">
            <thead>
              <tr>
                <th scope="col">Container</th>
                <th scope="col">State</th>
                <th scope="col" class="health">Health</th>
                <th scope="col" class="number">Restarts</th>
                <th scope="col">CPU</th>
                <th scope="col">Memory</th>
              </tr>
            </thead>
            <tbody>
              @for (row of rows(); track row.name) {
                <tr [class.picked]="row.name === picked()" [attr.data-container]="row.name">
                  <th scope="row">
                    <argus-pick-name [name]="row.name" [picked]="row.name === picked()" (pick)="pick(row.name)" />
                    @if (images().get(row.name); as image) {
                      <span class="image mono" [title]="image">{{ image }}</span>
                    }
                  </th>
                  <td>
                    <span [class]="'state state--' + row.state">{{ stateLabels[row.state] }}</span>
                  </td>
                  <td class="health">
                    {{ row.healthy === null ? 'No check' : row.healthy ? 'Healthy' : 'Unhealthy' }}
                  </td>
                  <td class="number">{{ row.restarts ?? '—' }}</td>
                  <td><argus-usage-bar [value]="row.cpuPct" /></td>
                  <td><argus-usage-bar [value]="row.memPct" /></td>
                </tr>
              }
            </tbody>
          </table>
        </div>
        <p class="note">CPU and memory are shares of the container's limit (of the host without one).</p>
      }
    }
    @if (picked(); as name) {
      <argus-system-charts
        [systemId]="systemId()"
        [seriesList]="chartSeries()"
        [only]="onlyPicked()"
        [heading]="name"
        data-testid="container-charts"
      />
    }
  `,
  styles: [
    PICKED_TABLE_STYLES,
    `
      .argus-table th,
      .argus-table td {
        vertical-align: middle;
      }
      .number {
        text-align: right;
        font-variant-numeric: tabular-nums;
      }
      /* under the name, smaller: the column stays as narrow as the names */
      .image {
        display: block;
        font: var(--mat-sys-body-small);
        color: var(--mat-sys-on-surface-variant);
        overflow-wrap: anywhere;
      }
      .state--exited,
      .state--unhealthy {
        color: var(--mat-sys-error);
        font-weight: 500;
      }
      @media (max-width: 600px) {
        // the state says "Unhealthy" already; the column makes room for the figures
        .health {
          display: none;
        }
      }
    `,
  ],
})
export class SystemContainers {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();
  /** The system's series (the page read them for its tabs). */
  readonly series = input.required<SeriesKey[]>();
  /** The container whose charts open first (from a quick search). */
  readonly initial = input<string | null>(null);

  protected readonly stateLabels = STATE_LABELS;
  protected readonly picked = signal<string | null>(null);

  private readonly names = computed(() =>
    this.series()
      .filter(isContainerSeries)
      .map((key) => key.instance),
  );
  private readonly request = computed(
    () => ({
      id: this.systemId(),
      keys: [...new Set(this.names())].flatMap((instance) =>
        CONTAINER_TABLE_METRICS.map((name) => ({ name, instance })),
      ),
    }),
    { equal: (a, b) => a.id === b.id && JSON.stringify(a.keys) === JSON.stringify(b.keys) },
  );
  protected readonly latest = toSignal(
    toObservable(this.request).pipe(switchMap(({ id, keys }) => this.api.charts$(id, keys, '1h'))),
    { initialValue: LOADING as Refreshing<ChartsData> },
  );
  private readonly imageList = toSignal(
    toObservable(this.systemId).pipe(switchMap((id) => this.api.containerImages$(id))),
    { initialValue: LOADING as Refreshing<ContainerImage[]> },
  );
  /** Each container's image; none while they load or for an agent that sends none. */
  protected readonly images = computed(() => {
    const state = this.imageList();
    return new Map(state.state === 'ready' ? state.value.map((c) => [c.name, c.image] as const) : []);
  });
  protected readonly rows = computed(() => {
    const state = this.latest();
    return state.state === 'ready' ? containerRows(latestValues(state.value), this.names()) : [];
  });

  protected readonly chartSeries = computed((): Refreshing<SeriesKey[]> => ({ state: 'ready', value: this.series() }));
  protected readonly onlyPicked = computed(() => {
    const name = this.picked();
    return (key: SeriesKey) => isContainerSeries(key) && key.instance === name;
  });

  constructor() {
    effect(() => {
      const initial = this.initial();
      if (initial) this.picked.set(initial);
    });
  }

  protected pick(name: string): void {
    this.picked.set(this.picked() === name ? null : name);
  }
}
