import { computed, DestroyRef, inject, Injectable, signal } from '@angular/core';
import { toObservable } from '@angular/core/rxjs-interop';
import { asyncScheduler, filter, interval, NEVER, Observable, Subscription, switchMap, throttleTime } from 'rxjs';

import { errorMessage } from '@console/core/api-error';
import { LiveService } from '@console/core/live';
import { LiveChange, REFRESH_INTERVAL_MS } from '@console/core/refresh';
import {
  SystemsApi,
  SystemsPage,
  SystemsPageQuery,
  SystemStatus,
  SystemSummary,
} from '@console/shared/systems/systems-api';
import type { Figure } from './grouping';

/**
 * The page's first request asks for this many rows. A fleet that fits (the account sees at most this many
 * systems) is followed whole, from the live snapshot; a larger one page by page (decisions.md "The systems
 * page at 10,000 systems").
 */
export const WHOLE_FLEET_MAX = 250;
/** Rows per further page as the user scrolls. */
export const PAGE_ROWS = 250;
/** Snapshots, and rows named by live changes, that arrive closer together than this are shown together. */
export const LIVE_COALESCE_MS = 500;
/** The status counts (the status filter's options, the headings) follow live changes at most this often. */
export const COUNTS_EVERY_MS = 5_000;
/** The server takes at most this many ids at once. */
const IDS_PER_REQUEST = 500;

export interface FleetFilter {
  text: string;
  status: SystemStatus | null;
  /** By customer and cluster (the default), or by a figure, highest first. */
  sort: FleetSort;
}

export type FleetSort = 'customer' | Figure;

/**
 * The systems page's rows at any fleet size. The first answer of GET /api/systems/page
 * decides how the page follows the fleet:
 * - **whole** (no next page): the rows follow the live `systems.list` snapshot (coalesced), the page
 *   filters in the browser, and no request is made while the snapshots flow;
 * - **paged** (a larger fleet): the server filters and orders, further pages load as the user scrolls, and
 *   the live `changes` messages that name rows held here fetch just those rows (`ids=`); counts follow.
 *   The 2.8 MiB snapshot of 10,000 systems is never subscribed to.
 */
@Injectable()
export class FleetList {
  private readonly api = inject(SystemsApi);
  private readonly live = inject(LiveService);

  readonly state = signal<'loading' | 'ready' | 'error'>('loading');
  readonly error = signal('');
  /** The message of a request that failed while earlier rows stay on screen. */
  readonly stale = signal<string | null>(null);
  /** True while the whole fleet is here (and filters apply in the browser). */
  readonly whole = signal(true);
  readonly rows = signal<readonly SystemSummary[]>([]);
  readonly loadingMore = signal(false);
  /** Paged: the systems matching the filter, per status (the status filter left out) and per customer. */
  readonly counts = signal<SystemsPage['counts'] | null>(null);
  readonly customerCounts = signal<ReadonlyMap<number, number>>(new Map());
  readonly total = signal(0);
  readonly hasMore = computed(() => this.nextCursor() !== null);

  private readonly nextCursor = signal<string | null>(null);
  private readonly held = computed(() => new Set(this.rows().map((row) => row.id)));
  private filter: FleetFilter = { text: '', status: null, sort: 'customer' };
  /** Answers to an older filter are dropped. */
  private generation = 0;
  private readonly follow = new Subscription();
  private readonly pendingIds = new Set<number>();
  private rowsTimer: ReturnType<typeof setTimeout> | null = null;
  private rowsInFlight = false;
  private lastRowsFetch = 0;
  private countsTimer: ReturnType<typeof setTimeout> | null = null;
  private lastCounts = 0;

  constructor() {
    const paused$ = toObservable(this.live.paused);
    inject(DestroyRef).onDestroy(() => {
      this.follow.unsubscribe();
      if (this.rowsTimer) clearTimeout(this.rowsTimer);
      if (this.countsTimer) clearTimeout(this.countsTimer);
    });
    this.api.page({ limit: WHOLE_FLEET_MAX }).subscribe({
      next: (page) => {
        this.take(page, false);
        this.state.set('ready');
        if (page.nextCursor === null) this.followWhole(paused$);
        else this.followPaged();
      },
      error: (err: unknown) => {
        this.error.set(errorMessage(err));
        this.state.set('error');
      },
    });
  }

  /** Paged: the server filters (whole: the page filters the rows it has, nothing to do here). */
  setFilter(next: FleetFilter): void {
    if (this.whole() || this.state() !== 'ready') {
      this.filter = next;
      return;
    }
    const same =
      next.text.trim() === this.filter.text.trim() &&
      next.status === this.filter.status &&
      next.sort === this.filter.sort;
    if (same) return;
    this.filter = next;
    const generation = ++this.generation;
    this.loadingMore.set(true);
    this.api.page({ limit: PAGE_ROWS, ...this.query() }).subscribe({
      next: (page) => generation === this.generation && this.take(page, false),
      error: (err: unknown) => generation === this.generation && this.failed(err),
    });
  }

  /** Paged: the next page, when the user scrolled near the end of the rows held. */
  loadMore(): void {
    const cursor = this.nextCursor();
    if (this.whole() || cursor === null || this.loadingMore()) return;
    const generation = this.generation;
    this.loadingMore.set(true);
    this.api.page({ limit: PAGE_ROWS, ...this.query(), cursor }).subscribe({
      next: (page) => generation === this.generation && this.take(page, true),
      error: (err: unknown) => generation === this.generation && this.failed(err),
    });
  }

  /** Paged: fetch these held rows again (the ones on screen, every 30 s: last seen moves without a change). */
  refresh(ids: readonly number[]): void {
    if (this.whole()) return;
    for (const id of ids) if (this.held().has(id)) this.pendingIds.add(id);
    this.scheduleRows();
    this.scheduleCounts();
  }

  private query(): Omit<SystemsPageQuery, 'limit'> {
    const q = this.filter.text.trim();
    const { status, sort } = this.filter;
    return {
      ...(q ? { q } : {}),
      ...(status ? { status } : {}),
      ...(sort === 'customer' ? {} : { sort, order: 'desc' as const }),
    };
  }

  private take(page: SystemsPage, append: boolean): void {
    this.loadingMore.set(false);
    this.stale.set(null);
    if (append) {
      const held = this.held();
      this.rows.update((rows) => [...rows, ...page.items.filter((row) => !held.has(row.id))]);
    } else this.rows.set(page.items);
    this.nextCursor.set(page.nextCursor);
    this.takeCounts(page);
  }

  private takeCounts(page: SystemsPage): void {
    this.counts.set(page.counts);
    this.total.set(page.total);
    this.customerCounts.set(new Map(page.customers.map((customer) => [customer.id, customer.count])));
  }

  private failed(err: unknown): void {
    this.loadingMore.set(false);
    this.stale.set(errorMessage(err));
  }

  private followWhole(paused$: Observable<boolean>): void {
    this.whole.set(true);
    this.follow.add(
      this.live
        .snapshot<SystemSummary[]>('systems.list')
        .pipe(throttleTime(LIVE_COALESCE_MS, asyncScheduler, { leading: true, trailing: true }))
        .subscribe((rows) => {
          this.rows.set(rows);
          this.stale.set(null);
        }),
    );
    // while the live channel is down, the rows are asked for every 30 s instead
    this.follow.add(
      paused$
        .pipe(
          switchMap((paused) => (paused ? interval(REFRESH_INTERVAL_MS) : NEVER)),
          switchMap(() => this.api.page({ limit: WHOLE_FLEET_MAX })),
        )
        .subscribe({ next: (page) => this.rows.set(page.items), error: (err: unknown) => this.failed(err) }),
    );
  }

  private followPaged(): void {
    this.whole.set(false);
    this.follow.add(
      this.live
        .messages<LiveChange>('changes')
        .pipe(filter((change) => change.topic === 'systems'))
        .subscribe((change) => this.refresh(change.ids)),
    );
  }

  /** Rows named since the last fetch go in one request, at once if none ran in the last 500 ms. */
  private scheduleRows(): void {
    if (this.rowsTimer || this.rowsInFlight || this.pendingIds.size === 0) return;
    const wait = this.lastRowsFetch + LIVE_COALESCE_MS - Date.now();
    if (wait <= 0) this.fetchRows();
    else this.rowsTimer = setTimeout(() => this.fetchRows(), wait);
  }

  private fetchRows(): void {
    this.rowsTimer = null;
    const ids = [...this.pendingIds].slice(0, IDS_PER_REQUEST);
    for (const id of ids) this.pendingIds.delete(id);
    if (ids.length === 0) return;
    this.rowsInFlight = true;
    this.lastRowsFetch = Date.now();
    const done = () => {
      this.rowsInFlight = false;
      this.scheduleRows();
    };
    this.api.page({ limit: IDS_PER_REQUEST, ids }).subscribe({
      next: (page) => {
        const asked = new Set(ids);
        const fresh = new Map(page.items.map((row) => [row.id, row]));
        // a row asked for and not answered is gone (deleted, or moved out of this account's sight)
        this.rows.update((rows) => rows.flatMap((row) => (asked.has(row.id) ? (fresh.get(row.id) ?? []) : [row])));
        done();
      },
      error: (err: unknown) => {
        this.failed(err);
        done();
      },
    });
  }

  private scheduleCounts(): void {
    if (this.countsTimer) return;
    const wait = this.lastCounts + COUNTS_EVERY_MS - Date.now();
    if (wait <= 0) this.fetchCounts();
    else this.countsTimer = setTimeout(() => this.fetchCounts(), wait);
  }

  private fetchCounts(): void {
    this.countsTimer = null;
    this.lastCounts = Date.now();
    const generation = this.generation;
    this.api.page({ limit: 1, ...this.query() }).subscribe({
      next: (page) => generation === this.generation && this.takeCounts(page),
      error: (err: unknown) => this.failed(err),
    });
  }
}
