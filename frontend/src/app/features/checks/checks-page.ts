import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { RouterLink } from '@angular/router';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { CheckStateBadge } from '@console/shared/checks/check-state-badge';
import {
  Check,
  CHECK_STATE_LABELS,
  CHECK_STATES,
  CHECK_TYPE_LABELS,
  CheckState,
  ChecksApi,
} from '@console/shared/checks/checks-api';
import { byName, CustomersApi, Fleet } from '@console/shared/customers/customers-api';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';
import { RowActions } from '@console/ui/row-actions';
import { Table } from '@console/ui/table';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { CheckDialog, CheckDialogData } from './check-dialog';
import { checkTarget, resultText } from './check-text';

/** The checks of one customer, as the page draws them. */
export interface CustomerChecks {
  id: number;
  name: string;
  checks: Check[];
}

/** Whether a check passes the filter: its state, and words found in its name, type or target. */
export function matchesFilter(check: Check, text: string, state: CheckState | null): boolean {
  if (state && check.state !== state) return false;
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = `${check.name} ${CHECK_TYPE_LABELS[check.type]} ${checkTarget(check.settings)}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/** The checks by customer (customers by name, as the fleet lists them), the customers without checks left out. */
export function byCustomer(checks: readonly Check[], fleet: Fleet | null): CustomerChecks[] {
  const names = new Map((fleet?.customers ?? []).map((c) => [c.id, c.name]));
  const groups = new Map<number, CustomerChecks>();
  for (const check of checks) {
    const group = groups.get(check.customerId) ?? {
      id: check.customerId,
      name: names.get(check.customerId) ?? `Customer ${check.customerId}`,
      checks: [],
    };
    group.checks.push(check);
    groups.set(check.customerId, group);
  }
  return [...groups.values()].sort(byName);
}

/** Network checks per customer: live state, last result, a filter; writers add, edit and delete. */
@Component({
  selector: 'argus-checks-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    CheckStateBadge,
    LoadState,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    PageHeader,
    RouterLink,
    RowActions,
    Table,
    TimeAgo,
  ],
  templateUrl: './checks-page.html',
  styleUrl: './checks-page.scss',
})
export class ChecksPage {
  private readonly api = inject(ChecksApi);
  private readonly auth = inject(AuthService);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  protected readonly now = injectNow();

  protected readonly checks = toSignal(this.api.checks$, { initialValue: LOADING as Refreshing<Check[]> });
  private readonly fleet = toSignal(inject(CustomersApi).fleet$, { initialValue: LOADING as Refreshing<Fleet> });

  protected readonly states = CHECK_STATES;
  protected readonly stateLabels = CHECK_STATE_LABELS;
  protected readonly typeLabels = CHECK_TYPE_LABELS;
  protected readonly target = checkTarget;
  protected readonly result = resultText;

  protected readonly text = signal('');
  protected readonly stateFilter = signal<CheckState | null>(null);

  /** ADMIN, or an OPERATOR granted at least one customer. */
  protected readonly mayCreate = computed(() => {
    const user = this.auth.user();
    return !!user && (user.role === 'ADMIN' || (user.role === 'OPERATOR' && user.customerIds.length > 0));
  });

  protected readonly groups = computed(() => {
    const checks = this.checks();
    const fleet = this.fleet();
    if (checks.state !== 'ready') return [];
    const shown = checks.value.filter((c) => matchesFilter(c, this.text(), this.stateFilter()));
    return byCustomer(shown, fleet.state === 'ready' ? fleet.value : null);
  });

  /** How many checks are in each state, worst first ("2 down · 5 up"). */
  protected readonly counts = computed(() => {
    const checks = this.checks();
    if (checks.state !== 'ready') return '';
    return CHECK_STATES.map((s) => [s, checks.value.filter((c) => c.state === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${CHECK_STATE_LABELS[s].toLowerCase()}`)
      .join(' · ');
  });

  protected mayWrite(check: Check): boolean {
    return mayWriteAt(this.auth.user(), check.customerId);
  }

  protected onText(event: Event): void {
    this.text.set((event.target as HTMLInputElement).value);
  }

  protected create(): void {
    this.formDialog.open<CheckDialogData, Check>(CheckDialog, { data: {}, width: '640px' }, (c) => `${c.name} created`);
  }

  protected edit(check: Check): void {
    this.formDialog.open<CheckDialogData, Check>(CheckDialog, { data: { check }, width: '640px' }, 'Check saved');
  }

  protected remove(check: Check): void {
    this.confirmThen.delete({
      name: check.name,
      message: 'Its results and alerts are deleted with it.',
      action: () => this.api.remove(check.id),
      done: 'Check deleted',
    });
  }
}
