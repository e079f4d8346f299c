import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { RouterLink } from '@angular/router';
import { filter, of, Subject, switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { Icon } from '@console/ui/icon';
import { injectNow, shortTime } from '@console/ui/time-ago';
import { openAckDialog } from './ack-dialog';
import { AlertNotifications } from './alert-notifications';
import { AlertSummary } from '@console/shared/alerts/alert-row';
import { Alert, AlertsApi } from '@console/shared/alerts/alerts-api';
import { DeliveryLogEntry, NotificationsApi } from '@console/shared/notifications/notifications-api';
import { Incident, IncidentsApi, incidentSystems, systemsText } from './incidents-api';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';

/** One alert, the target of the e-mail link `{AUTH_URL}/alerts/<id>`. */
@Component({
  selector: 'argus-alert-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AlertNotifications, AlertSummary, Icon, LoadState, MatButtonModule, RouterLink],
  template: `
    <a class="back" routerLink="/alerts"><argus-icon name="back" />Alerts</a>
    @let state = alert();
    <argus-load-state [state]="state" label="Loading the alert" />
    @if (state.state === 'ready') {
      @let a = state.value;
      <header class="page-header page-header--actions">
        <div>
          <h1>{{ a.ruleKey }}</h1>
          <p data-testid="state">{{ stateText(a) }}</p>
        </div>
        @if (mayAcknowledge(a)) {
          <button mat-flat-button type="button" (click)="acknowledge(a)">Acknowledge</button>
        }
      </header>
      @if (a.incidentId !== null) {
        <p class="incident" data-testid="incident">Part of incident: {{ incidentText() }}</p>
      }
      <argus-alert-summary [alert]="a" [now]="now()" />
      <dl class="facts">
        <div>
          <dt>System</dt>
          <dd>
            <a [routerLink]="['/systems', a.systemId]">{{ a.systemName }}</a>
          </dd>
        </div>
        <div>
          <dt>Customer</dt>
          <dd>{{ a.customerName }}</dd>
        </div>
        <div>
          <dt>Value</dt>
          <dd>{{ a.value ?? '—' }}</dd>
        </div>
      </dl>
      <argus-alert-notifications [alert]="a" [deliveries]="deliveries()" />
    }
  `,
  styles: `
    .back {
      display: inline-flex;
      gap: 4px;
      align-items: center;
      margin-bottom: 8px;
    }
    .facts {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
      gap: 12px;
      margin-top: 16px;
    }
    dt {
      color: var(--mat-sys-on-surface-variant);
    }
    dd {
      margin: 0;
    }
    .incident {
      margin: 0 0 8px;
      font-weight: 500;
    }
  `,
})
export class AlertPage {
  /** From the route (`alerts/:id`). */
  readonly id = input.required<string>();
  private readonly api = inject(AlertsApi);
  private readonly dialog = inject(MatDialog);
  private readonly notify = inject(Notify);
  private readonly auth = inject(AuthService);
  protected readonly now = injectNow();
  private readonly numericId = computed(() => Number(this.id()));
  protected readonly alert = toSignal(toObservable(this.numericId).pipe(switchMap((id) => this.api.alert$(id))), {
    initialValue: LOADING as Refreshing<Alert>,
  });
  /** An acknowledgement made here sends `acknowledged`: fetch the log again without waiting for the live change. */
  private readonly acknowledged$ = new Subject<void>();
  private readonly notifications = inject(NotificationsApi);
  protected readonly deliveries = toSignal(
    toObservable(this.numericId).pipe(
      switchMap((id) => this.notifications.alertNotifications$(id, this.acknowledged$)),
    ),
    { initialValue: LOADING as Refreshing<DeliveryLogEntry[]> },
  );

  /** The cluster incident the alert belongs to, fetched once its id is known (null: none). */
  private readonly incidentsApi = inject(IncidentsApi);
  private readonly incidentId = computed(() => {
    const state = this.alert();
    return state.state === 'ready' ? state.value.incidentId : null;
  });
  protected readonly incident = toSignal(
    toObservable(this.incidentId).pipe(switchMap((id) => (id === null ? of(null) : this.incidentsApi.incident$(id)))),
    { initialValue: null as Refreshing<Incident> | null },
  );

  /** "Site down: Berlin (3 systems)", while it loads "…". */
  protected readonly incidentText = computed(() => {
    const state = this.incident();
    if (state === null || state.state === 'loading') return '…';
    if (state.state === 'error') return `could not be loaded (${state.message})`;
    const incident = state.value;
    const text = `${incident.title} (${systemsText(incidentSystems(incident))})`;
    return incident.state === 'resolved' ? `${text}, resolved` : text;
  });

  protected stateText(alert: Alert): string {
    if (alert.state !== 'open') return 'Resolved';
    if (!alert.acknowledged) return 'Open';
    return alert.ackUntil
      ? `Open, acknowledged until ${shortTime(alert.ackUntil, alert.customerTimeZone)}`
      : 'Open, acknowledged';
  }

  protected mayAcknowledge(alert: Alert): boolean {
    return alert.state === 'open' && !alert.acknowledged && mayWriteAt(this.auth.user(), alert.customerId);
  }

  protected acknowledge(alert: Alert): void {
    openAckDialog(this.dialog, alert)
      .pipe(filter(Boolean))
      .subscribe(() => {
        this.acknowledged$.next();
        this.notify.done('Alert acknowledged');
      });
  }
}
