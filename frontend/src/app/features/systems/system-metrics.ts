import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatTabsModule } from '@angular/material/tabs';
import { switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { SeriesKey } from '@console/shared/systems/series';
import { SystemsApi } from '@console/shared/systems/systems-api';
import {
  isContainerSeries,
  isHostSeries,
  isScriptCheckSeries,
  isTopProcessSeries,
  isWatchedProcessSeries,
} from './latest-values';
import { SystemChecks } from './system-checks';
import { SystemCharts } from './system-charts';
import { SystemContainers } from './system-containers';
import { SystemProcesses } from './system-processes';

/** The tabs a link may open (`?tab=containers`). */
export type MetricsTab = 'host' | 'containers' | 'processes' | 'checks';

/**
 * A system's figures: the host's charts, and tabs for its containers, processes and script checks
 * when it reports any (a host without them keeps the one view it had). The series list is read once here for all.
 */
@Component({
  selector: 'argus-system-metrics',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatTabsModule, SystemCharts, SystemChecks, SystemContainers, SystemProcesses],
  template: `
    @if (tabs().length > 1) {
      <mat-tab-group
        mat-stretch-tabs="false"
        mat-align-tabs="start"
        animationDuration="0ms"
        aria-label="Host, containers, processes and checks"
        [selectedIndex]="selectedIndex()"
      >
        <mat-tab label="Host">
          <argus-system-charts [systemId]="systemId()" [seriesList]="list()" [only]="host" [projections]="true" />
        </mat-tab>
        @if (hasContainers()) {
          <mat-tab label="Containers">
            <ng-template matTabContent>
              <argus-system-containers [systemId]="systemId()" [series]="all()" [initial]="container() ?? null" />
            </ng-template>
          </mat-tab>
        }
        @if (hasProcesses()) {
          <mat-tab label="Processes">
            <ng-template matTabContent>
              <argus-system-processes [systemId]="systemId()" [series]="all()" />
            </ng-template>
          </mat-tab>
        }
        @if (hasChecks()) {
          <mat-tab label="Checks">
            <ng-template matTabContent>
              <argus-system-checks [systemId]="systemId()" [series]="all()" />
            </ng-template>
          </mat-tab>
        }
      </mat-tab-group>
    } @else {
      <argus-system-charts [systemId]="systemId()" [seriesList]="list()" [projections]="true" />
    }
  `,
  styles: `
    mat-tab-group {
      margin-top: 24px;
    }
    argus-system-containers,
    argus-system-processes,
    argus-system-checks {
      display: block;
      margin-top: 16px;
    }
  `,
})
export class SystemMetrics {
  private readonly api = inject(SystemsApi);

  readonly systemId = input.required<number>();
  /** The tab to open with. */
  readonly tab = input<string | null | undefined>(null);
  /** The container whose charts the Containers tab opens with. */
  readonly container = input<string | null | undefined>(null);

  protected readonly host = isHostSeries;

  protected readonly list = toSignal(toObservable(this.systemId).pipe(switchMap((id) => this.api.series$(id))), {
    initialValue: LOADING as Refreshing<SeriesKey[]>,
  });
  protected readonly all = computed(() => {
    const list = this.list();
    return list.state === 'ready' ? list.value : [];
  });
  protected readonly hasContainers = computed(() => this.all().some(isContainerSeries));
  protected readonly hasProcesses = computed(() =>
    this.all().some((key) => isTopProcessSeries(key) || isWatchedProcessSeries(key)),
  );
  protected readonly hasChecks = computed(() => this.all().some(isScriptCheckSeries));
  protected readonly tabs = computed((): MetricsTab[] => [
    'host',
    ...(this.hasContainers() ? (['containers'] as const) : []),
    ...(this.hasProcesses() ? (['processes'] as const) : []),
    ...(this.hasChecks() ? (['checks'] as const) : []),
  ]);
  protected readonly selectedIndex = computed(() => Math.max(0, this.tabs().indexOf(this.tab() as MetricsTab)));
}
