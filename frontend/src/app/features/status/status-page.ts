import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatCardModule } from '@angular/material/card';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { catchError, map, Observable, of, switchMap, timer } from 'rxjs';

import { Health, HealthService, ServiceState } from '../../core/health';
import { Icon, IconName } from '../../ui/icon';

export const POLL_INTERVAL_MS = 10_000;

type Check = { kind: 'loading' } | { kind: 'unreachable'; at: Date } | { kind: 'report'; health: Health };

interface ServiceRow {
  label: string;
  icon: IconName;
  state: ServiceState;
}

/** Live health of the backend and its dependencies, re-checked every ten seconds. */
@Component({
  selector: 'argus-status-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, Icon, MatCardModule, MatProgressBarModule],
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
    return [
      { label: 'Database', icon: 'database', state: database },
      { label: 'Redis', icon: 'redis', state: redis },
    ];
  });
}
