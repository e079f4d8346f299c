import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, DestroyRef, inject, signal } from '@angular/core';
import { takeUntilDestroyed, toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { Subscription } from 'rxjs';

import { errorMessage } from '@console/core/api-error';
import { loaded, LOADING } from '@console/core/loaded';
import { byName, CustomersApi } from '@console/shared/customers/customers-api';
import { AuditFilters, AuditItem, AuditLogApi, changeLines, NO_FILTERS } from './audit-log-api';
import { Table } from '@console/ui/table';
import { PageHeader } from '@console/ui/page-header';
import { CustomerSelect } from '@console/shared/customers/customer-select';

const ACTOR_TYPES: Record<AuditItem['actor']['type'], string> = { user: 'User', token: 'API token', system: 'System' };

/**
 * The audit log (administrators and operators; an operator sees its customers' rows): every change
 * made through the console or the API, who made it and from where, newest first, with filters and
 * "Load more". Secrets show as "[sealed]": the server never stores them.
 */
@Component({
  selector: 'argus-audit-log-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    CustomerSelect,
    Table,
    DatePipe,
    MatButtonModule,
    MatFormFieldModule,
    MatInputModule,
    MatProgressBarModule,
    ReactiveFormsModule,
  ],
  templateUrl: './audit-log-page.html',
  styles: `
    .filters {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 12px;
      align-items: center;
      margin-bottom: 8px;
    }
    .changes {
      margin: 0;
      padding: 0;
      list-style: none;
      font-family: var(--argus-mono, monospace);
      font-size: 0.8rem;
      overflow-wrap: anywhere;
    }
    .muted {
      color: var(--mat-sys-on-surface-variant);
      font-size: 0.85rem;
    }
    .paging {
      margin-top: 12px;
    }
  `,
})
export class AuditLogPage {
  private readonly api = inject(AuditLogApi);
  private readonly customersApi = inject(CustomersApi);
  private readonly destroyRef = inject(DestroyRef);

  protected readonly form = inject(FormBuilder).nonNullable.group({
    actor: '',
    customer: null as number | null,
    action: '',
    target: '',
    from: '',
    to: '',
  });

  /** The filters of the rows shown (the form applies on submit). */
  private applied: AuditFilters = NO_FILTERS;
  protected readonly items = signal<AuditItem[]>([]);
  protected readonly nextCursor = signal<string | null>(null);
  protected readonly loading = signal(true);
  protected readonly error = signal<string | null>(null);
  private request: Subscription | null = null;

  private readonly customerList = toSignal(loaded(this.customersApi.customers()), { initialValue: LOADING });
  protected readonly customers = computed(() => {
    const list = this.customerList();
    return list.state === 'ready' ? [...list.value].sort(byName) : [];
  });
  private readonly customerNames = computed(() => new Map(this.customers().map((c) => [c.id, c.name])));
  protected readonly actorTypes = ACTOR_TYPES;

  constructor() {
    this.load(null);
  }

  protected apply(): void {
    const value = this.form.getRawValue();
    this.applied = { ...value, customer: value.customer ?? null };
    this.load(null);
  }

  protected clear(): void {
    this.form.reset();
    this.apply();
  }

  protected more(): void {
    this.load(this.nextCursor());
  }

  protected customerName(id: number | null): string {
    if (id === null) return '';
    return this.customerNames().get(id) ?? `Customer ${id}`;
  }

  protected changes(item: AuditItem): string[] {
    return changeLines(item);
  }

  private load(cursor: string | null): void {
    this.request?.unsubscribe();
    this.loading.set(true);
    this.error.set(null);
    this.request = this.api
      .page(this.applied, cursor)
      .pipe(takeUntilDestroyed(this.destroyRef))
      .subscribe({
        next: (page) => {
          this.items.update((shown) => (cursor ? [...shown, ...page.items] : page.items));
          this.nextCursor.set(page.nextCursor);
          this.loading.set(false);
        },
        error: (err: unknown) => {
          this.error.set(errorMessage(err));
          this.loading.set(false);
        },
      });
  }
}
