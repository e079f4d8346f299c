import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonToggleModule } from '@angular/material/button-toggle';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { catchError, concat, distinctUntilChanged, EMPTY, endWith, map, Observable, of, scan, switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { FamilyChart, seriesAnswered, seriesWithData } from './family-chart';
import {
  ChartGroup,
  ChartRange,
  ChartsData,
  DEFAULT_RANGE,
  groupCharts,
  RANGES,
  sameCharts,
  SeriesKey,
  sourceLabel,
} from '@console/shared/systems/series';
import { SystemsApi } from '@console/shared/systems/systems-api';
import { LoadState } from '@console/ui/load-state';

/** The charts' data as shown: the last answer stays on screen while the next range loads. */
interface ChartsView {
  data: ChartsData | null;
  loading: boolean;
  error: string | null;
  stale: string | null;
}

const FIRST_LOAD: ChartsView = { data: null, loading: true, error: null, stale: null };

/**
 * The charts a page opens with on a screen (the status strip and two rows of two): asked for first, so
 * they are drawn before the rest of the page's series are read and drawn.
 */
export const FIRST_SCREEN_CHARTS = 5;

function nextView(view: ChartsView, state: Refreshing<ChartsData>): ChartsView {
  switch (state.state) {
    case 'loading':
      return { ...view, loading: true };
    case 'error':
      return { ...view, loading: false, error: state.message };
    default:
      return { data: state.value, loading: false, error: null, stale: state.stale ?? null };
  }
}

/**
 * A system's charts: a range picker, the series it reported in the last day grouped into charts by
 * the metric catalogue, loaded in one request per range (on opening, the first screen's charts in one
 * request before the rest); charts without data in the range are named in one line instead of drawn empty.
 */
@Component({
  selector: 'argus-system-charts',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState, FamilyChart, MatButtonToggleModule, MatProgressBarModule],
  template: `
    <div class="head">
      <h2>{{ heading() }}</h2>
      <mat-button-toggle-group
        hideSingleSelectionIndicator
        aria-label="Time range"
        [value]="range()"
        (change)="range.set($event.value)"
      >
        @for (option of ranges; track option.key) {
          <mat-button-toggle [value]="option.key">{{ option.label }}</mat-button-toggle>
        }
      </mat-button-toggle-group>
    </div>
    @let list = series();
    @let view = charts();
    <argus-load-state [state]="list" label="Loading metrics" />
    @if (list.state === 'ready') {
      @if (groups().length === 0) {
        <p class="empty" data-testid="no-metrics">
          No metrics in the last day. Charts appear here once the agent reports.
        </p>
      } @else {
        <div class="progress">
          @if (view.loading) {
            <mat-progress-bar mode="indeterminate" aria-label="Loading the charts" />
          }
        </div>
        @if (view.error) {
          <p class="form-error" role="alert">{{ view.error }}</p>
        }
        @if (view.data; as data) {
          <p class="source" data-testid="source">
            Source: {{ source() }}
            @if (view.stale) {
              <span class="stale">· not refreshed: {{ view.stale }}</span>
            }
          </p>
          <div class="charts">
            @for (group of shown(); track group.key) {
              <argus-family-chart
                [group]="group"
                [data]="data"
                [rangeLabel]="rangeLabel()"
                [forecasts]="forecasts()"
                [class.wide]="group.status"
                [attr.data-chart]="group.key"
              />
            }
          </div>
          @if (empty().length) {
            <p class="empty" data-testid="no-data">
              No data for {{ empty().join(', ') }} in the last {{ rangeLabel() }}.
            </p>
          }
        }
      }
    }
  `,
  styles: `
    .head {
      display: flex;
      align-items: center;
      justify-content: space-between;
      flex-wrap: wrap;
      gap: 12px;
      margin: 32px 0 16px;
    }
    h2 {
      font: var(--mat-sys-title-large);
      margin: 0;
    }
    mat-button-toggle-group {
      --mat-standard-button-toggle-height: 36px;
      max-width: 100%;
      // on a phone the ranges wrap to a second line rather than scroll out of sight
      flex-wrap: wrap;
    }
    .charts {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(min(100%, 460px), 1fr));
      gap: 16px;
    }
    .empty,
    .source {
      color: var(--mat-sys-on-surface-variant);
    }
    .source {
      margin: 0 0 12px;
      font: var(--mat-sys-body-small);
    }
    .stale {
      color: var(--mat-sys-error);
    }
    .progress {
      // the bar's room is kept, so the charts do not jump while a range loads
      height: 4px;
      margin-bottom: 8px;
    }
    .wide {
      grid-column: 1 / -1;
    }
  `,
})
export class SystemCharts {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();
  /** The series list when the page read it already (its tabs needed it); otherwise the charts ask for it. */
  readonly seriesList = input<Refreshing<SeriesKey[]> | null>(null);
  /** Which of the series to draw (a tab's share of them: one container, the watched patterns). */
  readonly only = input<(key: SeriesKey) => boolean>(() => true);
  readonly heading = input('Metrics');
  /** Draw the forecast projections of the series that have one (the host's charts). */
  readonly projections = input(false);

  protected readonly ranges = RANGES;
  protected readonly range = signal<ChartRange>(DEFAULT_RANGE);
  protected readonly rangeLabel = computed(() => RANGES.find((r) => r.key === this.range())?.label ?? '');

  private readonly fetched = toSignal(
    toObservable(computed(() => (this.seriesList() ? null : this.systemId()))).pipe(
      switchMap((id) => (id === null ? of(LOADING) : this.api.series$(id))),
    ),
    { initialValue: LOADING as Refreshing<SeriesKey[]> },
  );
  protected readonly series = computed(() => this.seriesList() ?? this.fetched());

  // Equal groupings keep their chart components (and what the user switched off) across reloads.
  protected readonly groups = computed<ChartGroup[]>(
    () => {
      const list = this.series();
      return list.state === 'ready' ? groupCharts(list.value.filter(this.only())) : [];
    },
    { equal: sameCharts },
  );

  /** The system whose charts were asked for already (its next requests are not an opening). */
  private opened: number | null = null;

  /** Every series of the page in one request per range (and again when the series reported change). */
  private readonly request = computed(() => ({
    id: this.systemId(),
    series: this.groups().flatMap((g) => g.series),
    first: this.groups()
      .slice(0, FIRST_SCREEN_CHARTS)
      .flatMap((g) => g.series),
    range: this.range(),
  }));
  protected readonly charts = toSignal(
    toObservable(this.request).pipe(
      switchMap(({ id, series, first, range }) => {
        if (!series.length) return of(LOADING);
        const all$ = this.api.charts$(id, series, range);
        // on opening, the first screen's charts first; a range change keeps the charts on screen meanwhile
        const opening = this.opened !== id && first.length < series.length;
        this.opened = id;
        return opening ? concat(of(LOADING), this.firstScreen$(id, first, range), all$) : concat(of(LOADING), all$);
      }),
      scan(nextView, FIRST_LOAD),
    ),
    { initialValue: FIRST_LOAD },
  );

  /** The first screen's charts, still loading the rest; a failure shows nothing (the whole request follows). */
  private firstScreen$(id: number, series: SeriesKey[], range: ChartRange): Observable<Refreshing<ChartsData>> {
    return this.api.chartsOnce$(id, series, range).pipe(
      map((value): Refreshing<ChartsData> => ({ state: 'ready', value })),
      endWith(LOADING),
      catchError(() => EMPTY),
    );
  }

  /**
   * The system's stored forecast lines, read once per system (they change once an hour); none when
   * they cannot be read: the charts stand without them.
   */
  protected readonly forecasts = toSignal(
    toObservable(computed(() => (this.projections() && this.groups().length > 0 ? this.systemId() : null))).pipe(
      distinctUntilChanged(),
      switchMap((id) => (id === null ? of(null) : this.api.forecasts(id).pipe(catchError(() => of(null))))),
    ),
    { initialValue: null },
  );

  private readonly withData = computed(() => {
    const data = this.charts().data;
    return new Set(data ? this.groups().filter((g) => seriesWithData(g, data).length > 0) : []);
  });
  /** The charts with data in the range. */
  protected readonly shown = computed(() => this.groups().filter((g) => this.withData().has(g)));
  /** The charts without (of those answered: the first screen's come before the rest): named in one line. */
  protected readonly empty = computed(() => {
    const data = this.charts().data;
    return this.groups()
      .filter((g) => !this.withData().has(g) && !!data && seriesAnswered(g, data))
      .map((g) => g.key);
  });

  protected readonly source = computed(() => {
    const data = this.charts().data;
    return data ? sourceLabel(data.source, data.bucketSeconds) : '—';
  });
}
