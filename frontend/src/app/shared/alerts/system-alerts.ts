import { ChangeDetectionStrategy, Component, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { RouterLink } from '@angular/router';
import { switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { injectNow } from '@console/ui/time-ago';
import { AlertSummary } from './alert-row';
import { Alert, AlertsApi } from './alerts-api';
import { LoadState } from '@console/ui/load-state';

export const HISTORY_SIZE = 20;

/** A system's recent alerts, open and resolved, newest first: embedded in the system page. */
@Component({
  selector: 'argus-system-alerts',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AlertSummary, LoadState, RouterLink],
  template: `
    <section aria-labelledby="system-alerts-title" class="history">
      <h2 id="system-alerts-title">Alert history</h2>
      @let state = alerts();
      <argus-load-state [state]="state" label="Loading alert history" />
      @if (state.state === 'ready') {
        @if (state.value.length === 0) {
          <p data-testid="no-alerts">No alerts yet.</p>
        } @else {
          <ul>
            @for (alert of state.value; track alert.id) {
              <li data-testid="history-alert">
                <argus-alert-summary [alert]="alert" [now]="now()" [showSystem]="false" />
              </li>
            }
          </ul>
          <a [routerLink]="['/alerts']" [queryParams]="{ system: systemId(), state: null }"
            >All alerts of this system</a
          >
        }
      }
    </section>
  `,
  styles: `
    .history {
      margin-top: 24px;
    }
    ul {
      list-style: none;
      padding: 0;
      margin: 0 0 8px;
    }
    li {
      padding: 8px 0;
      border-bottom: 1px solid var(--mat-sys-outline-variant);
    }
  `,
})
export class SystemAlerts {
  readonly systemId = input.required<number>();
  private readonly api = inject(AlertsApi);
  protected readonly now = injectNow();
  protected readonly alerts = toSignal(
    toObservable(this.systemId).pipe(switchMap((system) => this.api.alerts$({ system, limit: HISTORY_SIZE }))),
    { initialValue: LOADING as Refreshing<Alert[]> },
  );
}
