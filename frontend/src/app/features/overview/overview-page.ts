import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { RouterLink } from '@angular/router';
import { catchError, map, Observable, of, switchMap, timer } from 'rxjs';

import { HealthService } from '@console/core/health';
import { LOADING, readyValue } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { Icon } from '@console/ui/icon';
import { CheckStateBadge } from '@console/shared/checks/check-state-badge';
import { CHECK_STATES, CheckState, ChecksApi, ChecksSummary } from '@console/shared/checks/checks-api';
import { STATUS_LABELS, STATUSES, StatusBadge } from '@console/shared/systems/status-badge';
import { SystemStatus } from '@console/shared/systems/systems-api';
import { fleetLine } from './fleet-line';
import { FleetTrend } from './fleet-trend';
import { Overview, OverviewApi, OverviewCustomer } from './overview-api';
import { PageHeader } from '@console/ui/page-header';

export const HEALTH_INTERVAL_MS = 30_000;

type Health = 'checking' | 'ok' | 'degraded' | 'unreachable';

/** A critical or warning alert open, or a system critical, offline or in warning: drawn first. */
export function needsAttention(customer: OverviewCustomer): boolean {
  const { openAlerts, byStatus } = customer;
  return openAlerts.critical + openAlerts.warning + byStatus.CRITICAL + byStatus.OFFLINE + byStatus.WARNING > 0;
}

/** The home page: the fleet at a glance, per customer, live; then one line of Argus's own health. */
@Component({
  selector: 'argus-overview-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CheckStateBadge, PageHeader, DatePipe, FleetTrend, Icon, MatProgressBarModule, RouterLink, StatusBadge],
  templateUrl: './overview-page.html',
  styleUrl: './overview-page.scss',
})
export class OverviewPage {
  private readonly healthService = inject(HealthService);

  protected readonly overview = toSignal(inject(OverviewApi).overview$, {
    initialValue: LOADING as Refreshing<Overview>,
  });

  /** The first line: the monitored fleet (null until the overview is loaded). */
  protected readonly fleet = computed(() => {
    const overview = this.value();
    return overview ? fleetLine(overview) : null;
  });

  // the details live on /status (Argus health); here one line says whether Argus itself is well
  private readonly health$: Observable<Health> = timer(0, HEALTH_INTERVAL_MS).pipe(
    switchMap(() =>
      this.healthService.health$.pipe(
        map((health): Health => (health.status === 'ok' ? 'ok' : 'degraded')),
        catchError(() => of<Health>('unreachable')),
      ),
    ),
  );
  protected readonly health = toSignal(this.health$, { initialValue: 'checking' as Health });

  /** The network checks of each customer by state, beside its systems (kept current like the checks list). */
  private readonly checksSummary = toSignal(inject(ChecksApi).summary$, {
    initialValue: LOADING as Refreshing<ChecksSummary>,
  });
  protected readonly checksByCustomer = computed(() => {
    const summary = this.checksSummary();
    return new Map(summary.state === 'ready' ? summary.value.map((s) => [s.customerId, s]) : []);
  });
  /** All visible checks, and those down (null until loaded). */
  protected readonly checkTotals = computed(() => {
    const summary = this.checksSummary();
    if (summary.state !== 'ready') return null;
    return summary.value.reduce((sum, s) => ({ total: sum.total + s.total, down: sum.down + s.byState.DOWN }), {
      total: 0,
      down: 0,
    });
  });

  protected readonly statusLabels = STATUS_LABELS;
  /** Worst first; statuses no system has are left out of a customer's line. */
  protected readonly statuses = STATUSES;

  protected readonly value = computed(() => readyValue(this.overview()));

  /** Customers that need attention first (each group by name, as the API sends them). */
  protected readonly customers = computed(() => {
    const customers = this.value()?.customers ?? [];
    return [...customers.filter(needsAttention), ...customers.filter((customer) => !needsAttention(customer))];
  });
  protected readonly needingAttention = computed(() => this.customers().filter(needsAttention).length);

  /** The states a customer's checks are in, worst first. */
  protected checkStates(counts: Record<CheckState, number>): CheckState[] {
    return CHECK_STATES.filter((state) => counts[state] > 0);
  }

  protected present(counts: Record<SystemStatus, number>): SystemStatus[] {
    return this.statuses.filter((status) => counts[status] > 0);
  }
}
