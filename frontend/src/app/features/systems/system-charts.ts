import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonToggleModule } from '@angular/material/button-toggle';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { switchMap } from 'rxjs';

import { LOADING } from '../../core/loaded';
import { Refreshing } from '../../core/refresh';
import { FamilyChart } from './family-chart';
import {
  ChartRange,
  DEFAULT_RANGE,
  Family,
  groupFamilies,
  RANGES,
  sameFamilies,
  SeriesKey,
} from '../../shared/systems/series';
import { SystemsApi } from '../../shared/systems/systems-api';

/** A system's charts: a range picker, then one chart per metric family it reported in the last day. */
@Component({
  selector: 'argus-system-charts',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FamilyChart, MatButtonToggleModule, MatProgressBarModule],
  template: `
    <div class="head">
      <h2>Metrics</h2>
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
    @switch (list.state) {
      @case ('loading') {
        <mat-progress-bar mode="indeterminate" aria-label="Loading metrics" />
      }
      @case ('error') {
        <p class="form-error" role="alert">{{ list.message }}</p>
      }
      @case ('ready') {
        @if (families().length === 0) {
          <p class="empty" data-testid="no-metrics">
            No metrics in the last day. Charts appear here once the agent reports.
          </p>
        } @else {
          <div class="charts">
            @for (family of families(); track family.key) {
              <argus-family-chart [systemId]="systemId()" [family]="family" [range]="range()" />
            }
          </div>
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
    .empty {
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class SystemCharts {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();

  protected readonly ranges = RANGES;
  protected readonly range = signal<ChartRange>(DEFAULT_RANGE);

  protected readonly series = toSignal(toObservable(this.systemId).pipe(switchMap((id) => this.api.series$(id))), {
    initialValue: LOADING as Refreshing<SeriesKey[]>,
  });

  // Equal groupings keep their chart components (and what the user switched off) across reloads.
  protected readonly families = computed<Family[]>(
    () => {
      const list = this.series();
      return list.state === 'ready' ? groupFamilies(list.value) : [];
    },
    { equal: sameFamilies },
  );
}
