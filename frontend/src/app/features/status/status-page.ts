import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatCardModule } from '@angular/material/card';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { catchError, map, Observable, of, switchMap, timer } from 'rxjs';

import { Health, HealthService, ServiceState } from '@console/core/health';
import { Icon, IconName } from '@console/ui/icon';
import { PageHeader } from '@console/ui/page-header';

export const POLL_INTERVAL_MS = 10_000;

type Check = { kind: 'loading' } | { kind: 'unreachable'; at: Date } | { kind: 'report'; health: Health };

/** not-used: the instance runs without it (the demo without Redis), so it is neither OK nor an error. */
type ServiceView = ServiceState | 'not-used';

interface ServiceRow {
  label: string;
  icon: IconName;
  state: ServiceView;
}

export const SERVICE_BADGES: Record<ServiceView, { text: string; icon: IconName; chip: string }> = {
  ok: { text: 'OK', icon: 'ok', chip: 'badge--ok' },
  error: { text: 'Error', icon: 'error', chip: 'badge--error' },
  'not-used': { text: 'Not used', icon: 'pending', chip: 'badge--unused' },
};

/** Argus health: its own server and the services it depends on, re-checked every ten seconds. */
@Component({
  selector: 'argus-status-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, DatePipe, Icon, MatCardModule, MatProgressBarModule],
  templateUrl: './status-page.html',
  styleUrl: './status-page.scss',
})
export class StatusPage {
  private readonly healthService = inject(HealthService);

  // The error is caught inside switchMap so one failed check does not end the polling.
  private readonly checks$: Observable<Check> = timer(0, POLL_INTERVAL_MS).pipe(
    switchMap(() =>
      this.healthService.health$.pipe(
        map((health): Check => ({ kind: 'report', health })),
        catchError(() => of<Check>({ kind: 'unreachable', at: new Date() })),
      ),
    ),
  );

  protected readonly badges = SERVICE_BADGES;
  protected readonly check = toSignal(this.checks$, { initialValue: { kind: 'loading' } as Check });

  /** The latest evaluation run when it failed (for every customer or some), else null. */
  protected readonly failingEvaluation = computed(() => {
    const check = this.check();
    return check.kind === 'report' ? (check.health.evaluation ?? null) : null;
  });

  protected readonly services = computed<ServiceRow[]>(() => {
    const check = this.check();
    if (check.kind !== 'report') return [];
    const { database, redis } = check.health.services;
    const redisUsed = !check.health.notUsed?.includes('redis');
    return [
      { label: 'Database', icon: 'database', state: database },
      { label: 'Redis', icon: 'redis', state: redisUsed ? redis : 'not-used' },
    ];
  });
}
