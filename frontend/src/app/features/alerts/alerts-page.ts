import { ChangeDetectionStrategy, Component, computed, inject, input, linkedSignal, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatAutocompleteModule } from '@angular/material/autocomplete';
import { MatButtonModule } from '@angular/material/button';
import { MatButtonToggleModule } from '@angular/material/button-toggle';
import { MatDialog } from '@angular/material/dialog';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { catchError, debounceTime, filter, map, of, switchMap } from 'rxjs';

import { AuthService, Severity } from '@console/core/auth';
import { loaded, LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { injectNow } from '@console/ui/time-ago';
import { byName, CustomersApi } from '@console/shared/customers/customers-api';
import { SystemsApi, SystemSummary } from '@console/shared/systems/systems-api';
import { openAckDialog } from './ack-dialog';
import { AlertSummary } from '@console/shared/alerts/alert-row';
import {
  Alert,
  AlertFilter,
  AlertsApi,
  AlertState,
  PAGE_SIZE,
  SEVERITY_LABELS,
} from '@console/shared/alerts/alerts-api';
import { Incident, IncidentsApi } from './incidents-api';
import { OpenIncidents } from './open-incidents';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';
import { CustomerSelect } from '@console/shared/customers/customer-select';

/** The System filter offers this many systems matching what was typed (a fleet can have 10,000). */
export const SYSTEM_OPTIONS = 20;
const TYPING_PAUSE_MS = 200;

function idParam(value: string | undefined): number | null {
  const id = Number(value);
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** Open and resolved alerts with filters; writers acknowledge open ones with a note. */
@Component({
  selector: 'argus-alerts-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    CustomerSelect,
    AlertSummary,
    LoadState,
    MatAutocompleteModule,
    MatButtonModule,
    MatButtonToggleModule,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    OpenIncidents,
  ],
  templateUrl: './alerts-page.html',
  styles: `
    .filters {
      display: flex;
      flex-wrap: wrap;
      gap: 12px;
      align-items: center;
      margin-bottom: 8px;
    }
    .alerts {
      list-style: none;
      padding: 0;
      margin: 0;
    }
    .alerts li {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 12px;
      justify-content: space-between;
      align-items: flex-start;
      padding: 12px 0;
      border-bottom: 1px solid var(--mat-sys-outline-variant);
    }
    /* the text takes the room it needs and wraps; the action goes under it on a narrow screen */
    .alerts argus-alert-summary {
      flex: 1 1 16rem;
    }
    .paging {
      display: flex;
      gap: 8px;
      margin-top: 12px;
    }
  `,
})
export class AlertsPage {
  private readonly api = inject(AlertsApi);
  private readonly customersApi = inject(CustomersApi);
  private readonly dialog = inject(MatDialog);
  private readonly notify = inject(Notify);
  private readonly user = inject(AuthService).user;
  protected readonly now = injectNow();
  protected readonly severities = Object.keys(SEVERITY_LABELS) as Severity[];
  protected readonly severityLabels = SEVERITY_LABELS;

  /** `?customer=` and `?system=` (the system page links here with its id) preset the filters. */
  readonly customer = input<string | undefined>();
  readonly system = input<string | undefined>();

  protected readonly state = signal<AlertState>('open');
  protected readonly customerFilter = linkedSignal(() => idParam(this.customer()));
  protected readonly systemFilter = linkedSignal(() => idParam(this.system()));
  protected readonly severity = signal<Severity | null>(null);
  /** Keyset paging: the id the shown page starts below; null = the newest. */
  protected readonly before = signal<number | null>(null);

  private readonly query = computed<AlertFilter>(() => ({
    state: this.state(),
    customer: this.customerFilter(),
    system: this.systemFilter(),
    severity: this.severity(),
    limit: PAGE_SIZE,
    ...(this.before() === null ? {} : { before: this.before() as number }),
  }));
  protected readonly alerts = toSignal(toObservable(this.query).pipe(switchMap((q) => this.api.alerts$(q))), {
    initialValue: LOADING as Refreshing<Alert[]>,
  });

  /**
   * The page's alerts as shown: resolved ones by when they resolved, newest first (the server pages by
   * id, the order they were raised in; paging still goes by the last id of the answer).
   */
  protected readonly rows = computed(() => {
    const list = this.alerts();
    if (list.state !== 'ready') return [];
    if (this.state() !== 'resolved') return list.value;
    return [...list.value].sort(
      (a, b) => Date.parse(b.resolvedAt ?? '') - Date.parse(a.resolvedAt ?? '') || b.id - a.id,
    );
  });

  /** The open cluster incidents (of the customer filter), whatever the other filters say. */
  private readonly incidentsApi = inject(IncidentsApi);
  protected readonly incidents = toSignal(
    toObservable(this.customerFilter).pipe(
      switchMap((customer) => this.incidentsApi.incidents$({ state: 'open', customer })),
    ),
    { initialValue: LOADING as Refreshing<Incident[]> },
  );

  /** Customers for the filter, fetched once. */
  private readonly customerOptions = toSignal(loaded(this.customersApi.customers()), {
    initialValue: LOADING,
  });
  protected readonly customers = computed(() => {
    const o = this.customerOptions();
    return o.state === 'ready' ? [...o.value].sort(byName) : [];
  });

  /**
   * The System filter is typed, not picked from every system: the server offers the first matches (of
   * the chosen customer), once the field is used (10,000 options took 15 s to open).
   */
  private readonly systemsApi = inject(SystemsApi);
  protected readonly systemText = signal('');
  private readonly systemFieldUsed = signal(false);
  protected readonly systemOptions = toSignal(
    toObservable(
      computed(() => ({ q: this.systemText().trim(), customer: this.customerFilter(), used: this.systemFieldUsed() })),
    ).pipe(
      debounceTime(TYPING_PAUSE_MS),
      switchMap(({ q, customer, used }) =>
        used
          ? this.systemsApi
              .page({
                limit: SYSTEM_OPTIONS,
                sort: 'name',
                ...(q ? { q } : {}),
                ...(customer === null ? {} : { customer }),
              })
              .pipe(
                map((page) => page.items),
                catchError(() => of<SystemSummary[]>([])),
              )
          : of<SystemSummary[]>([]),
      ),
    ),
    { initialValue: [] as SystemSummary[] },
  );
  private readonly knownNames = new Map<number, string>();
  /** The chosen system's name in the field (a ?system= preset is looked up once). */
  protected readonly systemLabel = toSignal(
    toObservable(this.systemFilter).pipe(
      switchMap((id) => {
        if (id === null) return of('');
        const known = this.knownNames.get(id);
        if (known !== undefined) return of(known);
        return this.systemsApi.page({ limit: 1, ids: [id] }).pipe(
          map((page) => page.items[0]?.name ?? `System ${id}`),
          catchError(() => of(`System ${id}`)),
        );
      }),
    ),
    { initialValue: '' },
  );
  protected readonly systemName = (system: SystemSummary | null): string => system?.name ?? '';

  protected useSystemField(): void {
    this.systemFieldUsed.set(true);
  }

  protected typeSystem(text: string): void {
    this.systemText.set(text);
    if (text.trim() === '' && this.systemFilter() !== null) this.setSystem(null);
  }

  protected pickSystem(system: SystemSummary | null): void {
    if (system) this.knownNames.set(system.id, system.name);
    this.systemText.set('');
    this.setSystem(system?.id ?? null);
  }

  protected mayAcknowledge(alert: Alert): boolean {
    return alert.state === 'open' && !alert.acknowledged && mayWriteAt(this.user(), alert.customerId);
  }

  protected setState(state: AlertState): void {
    this.state.set(state);
    this.before.set(null);
  }

  protected setCustomer(customer: number | null): void {
    this.customerFilter.set(customer);
    this.systemFilter.set(null);
    this.before.set(null);
  }

  protected setSystem(system: number | null): void {
    this.systemFilter.set(system);
    this.before.set(null);
  }

  protected setSeverity(severity: Severity | null): void {
    this.severity.set(severity);
    this.before.set(null);
  }

  protected older(alerts: Alert[]): void {
    const last = alerts.at(-1);
    if (last) this.before.set(last.id);
  }

  protected newest(): void {
    this.before.set(null);
  }

  protected acknowledge(alert: Alert): void {
    openAckDialog(this.dialog, alert)
      .pipe(filter(Boolean))
      .subscribe(() => this.notify.done('Alert acknowledged'));
  }

  protected readonly pageSize = PAGE_SIZE;
}
