import { BreakpointObserver } from '@angular/cdk/layout';
import { ScrollingModule } from '@angular/cdk/scrolling';
import { ChangeDetectionStrategy, Component, computed, DestroyRef, inject, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSelectModule } from '@angular/material/select';
import { RouterLink } from '@angular/router';
import { debounceTime, map } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { revealFragment } from '@console/core/fragment';
import { REFRESH_INTERVAL_MS } from '@console/core/refresh';
import { Icon } from '@console/ui/icon';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { AlertCounts } from './alert-counts';
import { FleetList, FleetSort } from './fleet-list';
import {
  byFigure,
  countByStatus,
  flatten,
  flattenRows,
  groupSystems,
  ListItem,
  matchesFilter,
  systemLines,
} from './grouping';
import { STATUS_LABELS, STATUSES, StatusBadge } from './status-badge';
import { UsageBar } from './usage-bar';
import { SystemStatus } from '@console/shared/systems/systems-api';
import { PageHeader } from '@console/ui/page-header';

/** A line's height: rows on a wide screen, cards below 600 px (the virtual scroll needs one fixed size). */
const ROW_PX = 52;
const CARD_PX = 132;
/** Typing is sent to the server (large fleets) once it pauses this long. */
const TYPING_PAUSE_MS = 250;
/** A large fleet's next page is asked for when the first line on screen is this close to the end. */
const LOAD_AHEAD_LINES = 100;
/** Lines refreshed every 30 s from the first on screen (more than a tall screen shows). */
const SCREEN_LINES = 60;

const SORT_OPTIONS: readonly { value: FleetSort; label: string }[] = [
  { value: 'customer', label: 'Customer and cluster' },
  { value: 'cpu', label: 'CPU, highest first' },
  { value: 'memory', label: 'Memory, highest first' },
  { value: 'disk', label: 'Fullest disk first' },
];

/**
 * Every system the account may see, grouped by customer and cluster, with a text and a status filter;
 * virtual-scrolled, live updates coalesced. A fleet of up to WHOLE_FLEET_MAX systems is here whole and
 * follows the live snapshot; a larger one is paged, filtered and followed on the server (FleetList).
 */
@Component({
  selector: 'argus-system-list-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
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
    UsageBar,
  ],
  providers: [FleetList],
  templateUrl: './system-list-page.html',
  styleUrl: './system-list-page.scss',
})
export class SystemListPage {
  protected readonly fleet = inject(FleetList);
  protected readonly auth = inject(AuthService);
  protected readonly now = injectNow();

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
  /** Grouped by customer and cluster, or one flat list by a figure (CPU, memory, fullest disk). */
  protected readonly sort = signal<FleetSort>('customer');
  protected readonly sortOptions = SORT_OPTIONS;
  private readonly firstLine = signal(0);

  protected readonly statuses = STATUSES;
  protected readonly statusLabels = STATUS_LABELS;

  private readonly filter = computed(() => {
    const status = this.status();
    return { text: this.text(), status: status === 'ANY' ? null : status, sort: this.sort() };
  });
  /** Per status, the text filter aside (whole: counted here; paged: by the server). */
  protected readonly counts = computed(() => this.fleet.counts() ?? countByStatus(this.fleet.rows()));
  protected readonly countAll = computed(() =>
    this.fleet.whole() ? this.fleet.rows().length : Object.values(this.counts()).reduce((sum, n) => sum + n, 0),
  );
  protected readonly items = computed((): ListItem[] => {
    const sort = this.sort();
    if (!this.fleet.whole()) {
      // the server orders a large fleet; by a figure its rows come without headings
      if (sort !== 'customer') return systemLines(this.fleet.rows());
      const counts = this.fleet.customerCounts();
      return flattenRows(this.fleet.rows(), (id) => counts.get(id) ?? 0);
    }
    const filter = this.filter();
    const matching = this.fleet.rows().filter((system) => matchesFilter(system, filter));
    // the live snapshot replaces the rows: a figure order follows the newest values
    return sort === 'customer' ? flatten(groupSystems(matching)) : systemLines(byFigure(matching, sort));
  });
  /** No system at all (not: none that matches). */
  protected readonly empty = computed(() => this.fleet.whole() && this.fleet.rows().length === 0);
  protected readonly trackItem = (_: number, item: ListItem) => item.key;
  protected readonly filtered = computed(() => this.text().trim() !== '' || this.status() !== 'ANY');

  constructor() {
    // the overview links a customer to /systems#customer-<id>
    revealFragment(() => this.fleet.state() === 'ready');
    const statusNow = computed(() => [this.status(), this.sort()]);
    // a status or an order is sent at once, typing once it pauses
    toObservable(this.filter)
      .pipe(debounceTime(TYPING_PAUSE_MS))
      .subscribe((filter) => this.fleet.setFilter(filter));
    toObservable(statusNow).subscribe(() => this.fleet.setFilter(this.filter()));
    const timer = setInterval(() => this.fleet.refresh(this.systemIdsOnScreen()), REFRESH_INTERVAL_MS);
    inject(DestroyRef).onDestroy(() => clearInterval(timer));
  }

  protected scrolledTo(index: number): void {
    this.firstLine.set(index);
    if (index + LOAD_AHEAD_LINES >= this.items().length) this.fleet.loadMore();
  }

  private systemIdsOnScreen(): number[] {
    const start = this.firstLine();
    return this.items()
      .slice(start, start + SCREEN_LINES)
      .flatMap((item) => (item.kind === 'system' ? [item.system.id] : []));
  }

  protected clearFilters(): void {
    this.text.set('');
    this.status.set('ANY');
  }
}
