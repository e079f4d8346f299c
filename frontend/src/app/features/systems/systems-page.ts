import { BreakpointObserver } from '@angular/cdk/layout';
import { ScrollingModule } from '@angular/cdk/scrolling';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSelectModule } from '@angular/material/select';
import { RouterLink } from '@angular/router';
import { asyncScheduler, map, throttleTime } from 'rxjs';

import { AuthService } from '../../core/auth';
import { revealFragment } from '../../core/fragment';
import { LOADING } from '../../core/loaded';
import { Refreshing } from '../../core/refresh';
import { Icon } from '../../ui/icon';
import { injectNow, TimeAgo } from '../../ui/time-ago';
import { AlertCounts } from './alert-counts';
import { countByStatus, flatten, groupSystems, ListItem, matchesFilter } from './grouping';
import { STATUS_LABELS, STATUSES, StatusBadge } from './status-badge';
import { SystemsApi, SystemStatus, SystemSummary } from '../../shared/systems/systems-api';

/** A line's height: rows on a wide screen, cards below 600 px (the virtual scroll needs one fixed size). */
const ROW_PX = 52;
const CARD_PX = 132;
/** Snapshots that arrive closer together than this are shown together (a burst renders once). */
export const LIVE_COALESCE_MS = 500;

/**
 * Every system the account may see, grouped by customer and cluster, with a text and a status filter;
 * virtual-scrolled (issue 15: 10,000 systems render only the lines on screen), live updates coalesced.
 */
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
    ScrollingModule,
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

  protected readonly systems = toSignal(
    this.api.systems$.pipe(throttleTime(LIVE_COALESCE_MS, asyncScheduler, { leading: true, trailing: true })),
    {
      initialValue: LOADING as Refreshing<SystemSummary[]>,
    },
  );
  private readonly narrow = toSignal(
    inject(BreakpointObserver)
      .observe('(max-width: 600px)')
      .pipe(map((state) => state.matches)),
    { initialValue: false },
  );
  protected readonly itemSize = computed(() => (this.narrow() ? CARD_PX : ROW_PX));
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
  protected readonly items = computed(() => {
    const status = this.status();
    const filter = { text: this.text(), status: status === 'ANY' ? null : status };
    return flatten(groupSystems(this.all().filter((system) => matchesFilter(system, filter))));
  });
  protected readonly trackItem = (_: number, item: ListItem) => item.key;
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
