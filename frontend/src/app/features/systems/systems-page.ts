import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSelectModule } from '@angular/material/select';
import { RouterLink } from '@angular/router';

import { AuthService } from '../../core/auth';
import { revealFragment } from '../../core/fragment';
import { LOADING } from '../../core/loaded';
import { Refreshing } from '../../core/refresh';
import { Icon } from '../../ui/icon';
import { injectNow, TimeAgo } from '../../ui/time-ago';
import { AlertCounts } from './alert-counts';
import { countByStatus, groupSystems, matchesFilter } from './grouping';
import { STATUS_LABELS, STATUSES, StatusBadge } from './status-badge';
import { SystemsApi, SystemStatus, SystemSummary } from '../../shared/systems/systems-api';

/** Every system the account may see, grouped by customer and cluster, with a text and a status filter. */
@Component({
  selector: 'argus-systems-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    AlertCounts,
    Icon,
    MatButtonModule,
    MatFormFieldModule,
    MatInputModule,
    MatProgressBarModule,
    MatSelectModule,
    RouterLink,
    StatusBadge,
    TimeAgo,
  ],
  templateUrl: './systems-page.html',
  styleUrl: './systems-page.scss',
})
export class SystemsPage {
  private readonly api = inject(SystemsApi);
  protected readonly auth = inject(AuthService);
  protected readonly now = injectNow();

  protected readonly systems = toSignal(this.api.systems$, {
    initialValue: LOADING as Refreshing<SystemSummary[]>,
  });
  protected readonly text = signal('');
  /** 'ANY' rather than null: a null option is Material's "no selection" and would leave the select blank. */
  protected readonly status = signal<SystemStatus | 'ANY'>('ANY');

  protected readonly statuses = STATUSES;
  protected readonly statusLabels = STATUS_LABELS;

  private readonly all = computed(() => {
    const list = this.systems();
    return list.state === 'ready' ? list.value : [];
  });
  protected readonly counts = computed(() => countByStatus(this.all()));
  protected readonly groups = computed(() => {
    const status = this.status();
    const filter = { text: this.text(), status: status === 'ANY' ? null : status };
    return groupSystems(this.all().filter((system) => matchesFilter(system, filter)));
  });
  protected readonly filtered = computed(() => this.text().trim() !== '' || this.status() !== 'ANY');

  constructor() {
    // the overview links a customer to /systems#customer-<id>
    revealFragment(() => this.systems().state === 'ready');
  }

  protected clearFilters(): void {
    this.text.set('');
    this.status.set('ANY');
  }
}
