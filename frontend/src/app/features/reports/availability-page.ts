import { ChangeDetectionStrategy, Component, computed, inject, input, linkedSignal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { Router } from '@angular/router';
import { of, startWith, switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { loaded, LOADING, Loaded } from '@console/core/loaded';
import { mayWriteAt } from '@console/core/rights';
import { Icon } from '@console/ui/icon';
import { Customer, CustomersApi } from '@console/shared/customers/customers-api';
import { OFFLINE_RULE_KEY } from '@console/shared/rules/rules-api';
import { MonthlyReportSection } from './monthly-report-section';
import {
  AvailabilityReport,
  availabilityText,
  downloadUrl,
  durationText,
  presetRange,
  RangePreset,
  ReportRequest,
  ReportsApi,
  todayIn,
} from './reports-api';
import { TimelineBar } from './timeline-bar';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';
import { CustomerSelect } from '@console/shared/customers/customer-select';

const idParam = (value: string | undefined): number | null =>
  value && /^[1-9]\d*$/.test(value) ? Number(value) : null;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Availability of a customer's systems over days of the customer's calendar: a table per
 * system with a timeline bar, the clusters and the total, CSV and PDF downloads, and for the
 * customer's writers the monthly report e-mail. The range lives in the address (?customer=&from=&to=),
 * which the monthly e-mail links to.
 */
@Component({
  selector: 'argus-availability-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    CustomerSelect,
    Icon,
    LoadState,
    MatButtonModule,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    MonthlyReportSection,
    TimelineBar,
  ],
  templateUrl: './availability-page.html',
  styleUrl: './availability-page.scss',
})
export class AvailabilityPage {
  private readonly api = inject(ReportsApi);
  private readonly customersApi = inject(CustomersApi);
  private readonly router = inject(Router);
  private readonly user = inject(AuthService).user;

  readonly customer = input<string | undefined>();
  readonly from = input<string | undefined>();
  readonly to = input<string | undefined>();

  private readonly fleet = toSignal(loaded(this.customersApi.customers()), {
    initialValue: LOADING as Loaded<Customer[]>,
  });
  protected readonly customers = computed(() => {
    const f = this.fleet();
    return f.state === 'ready' ? [...f.value].sort((a, b) => a.name.localeCompare(b.name)) : [];
  });
  protected readonly customerId = linkedSignal<number | null>(
    () => idParam(this.customer()) ?? this.customers()[0]?.id ?? null,
  );
  protected readonly chosenCustomer = computed(() => this.customers().find((c) => c.id === this.customerId()) ?? null);
  private readonly today = computed(() => todayIn(this.chosenCustomer()?.timeZone ?? 'UTC'));
  protected readonly range = linkedSignal(() => {
    const from = this.from();
    const to = this.to();
    return from && to && DATE.test(from) && DATE.test(to) ? { from, to } : presetRange('this-month', this.today());
  });
  protected readonly preset = computed<RangePreset>(() => {
    const { from, to } = this.range();
    for (const preset of ['this-month', 'last-month'] as const) {
      const candidate = presetRange(preset, this.today());
      if (candidate.from === from && candidate.to === to) return preset;
    }
    return 'custom';
  });

  protected readonly request = computed<ReportRequest | null>(() => {
    const customer = this.customerId();
    return customer === null ? null : { customer, ...this.range() };
  });
  protected readonly report = toSignal(
    toObservable(this.request).pipe(
      switchMap((request) =>
        request
          ? loaded(this.api.availability(request)).pipe(startWith(LOADING as Loaded<AvailabilityReport>))
          : of(LOADING as Loaded<AvailabilityReport>),
      ),
    ),
    { initialValue: LOADING as Loaded<AvailabilityReport> },
  );
  protected readonly mayWrite = computed(() => {
    const id = this.customerId();
    return id !== null && mayWriteAt(this.user(), id);
  });

  protected readonly availability = availabilityText;
  protected readonly duration = durationText;

  /** What the figures counted as down: a system offline, and the alerts of the rules that count as downtime. */
  protected counted(report: AvailabilityReport): string {
    const others = report.downtimeRules.filter((rule) => rule.key !== OFFLINE_RULE_KEY).map((rule) => rule.name);
    const alerts = others.length ? `, or an open alert of ${others.join(', ')}` : '';
    return `Counted as down: a system offline${alerts}. Other alerts are not downtime.`;
  }

  protected clusterName(report: AvailabilityReport, id: number | null): string {
    return id === null ? '' : (report.clusters.find((c) => c.id === id)?.name ?? '');
  }

  protected download(format: 'csv' | 'pdf'): string {
    const request = this.request();
    return request ? downloadUrl(request, format) : '';
  }

  protected chooseCustomer(id: number): void {
    this.customerId.set(id);
    this.range.set(presetRange('this-month', this.today()));
    this.remember();
  }

  protected choosePreset(preset: RangePreset): void {
    if (preset === 'custom') return;
    this.range.set(presetRange(preset, this.today()));
    this.remember();
  }

  protected chooseDate(edge: 'from' | 'to', value: string): void {
    if (!DATE.test(value)) return;
    this.range.update((range) => ({ ...range, [edge]: value }));
    this.remember();
  }

  /** Keeps the choice in the address, so a reload or a shared link shows the same report. */
  private remember(): void {
    const request = this.request();
    if (!request) return;
    void this.router.navigate([], { queryParams: { ...request }, replaceUrl: true });
  }
}
