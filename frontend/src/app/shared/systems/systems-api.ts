import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { forkJoin, interval, map, merge, NEVER, Observable } from 'rxjs';

import { LiveService } from '@console/core/live';
import { Changes, onChangeOf, Refreshing, refreshing } from '@console/core/refresh';
import { LiveReport, withLiveTail } from './live-tail';
import { ChartAnswer, ChartRange, ChartsData, rangeWindow, SeriesKey } from './series';
import { MAX_BATCH_SERIES } from '@contracts/metric-catalogue';
import type { SystemForecasts } from '@contracts/rules';
import type {
  ContainerImage,
  ScriptCheck,
  System,
  SystemChanges,
  SystemDetail,
  SystemsPage,
  SystemStatus,
} from '@contracts/systems';

// the JSON of /api/systems, from the schemas the server answers with (contracts/systems.ts)
export type { ContainerImage, ScriptCheck, SystemChanges, SystemDetail, SystemsPage, SystemStatus };
/** One system as GET /api/systems lists it (docs/api.md "Fleet"). */
export type SystemSummary = System;

export const SYSTEMS_URL = '/api/systems';

export const SYSTEMS_PAGE_URL = `${SYSTEMS_URL}/page`;

export const systemUrl = (id: number): string => `${SYSTEMS_URL}/${id}`;

/** A system's page fetches its row again this often for last seen (an agent reports every 30 s by default). */
export const SYSTEM_LAST_SEEN_MS = 30_000;

/** What GET /api/systems/page takes (docs/api.md "Systems"); the order is by customer unless `sort` says name. */
export interface SystemsPageQuery {
  limit: number;
  sort?: 'name' | 'cpu' | 'memory' | 'disk';
  order?: 'asc' | 'desc';
  q?: string;
  status?: SystemStatus;
  customer?: number;
  cursor?: string;
  ids?: readonly number[];
}

/** Systems and their chart data. Every stream reloads on REFRESH_INTERVAL_MS and after changes made here. */
@Injectable({ providedIn: 'root' })
export class SystemsApi {
  private readonly http = inject(HttpClient);
  private readonly live = inject(LiveService);
  private readonly changed$ = new Changes();

  /** One page of the systems list, filtered and ordered by customer, cluster and name on the server. */
  /** Every system the account may see, one answer (pickers; the systems page pages instead). */
  all(): Observable<SystemSummary[]> {
    return this.http.get<SystemSummary[]>(SYSTEMS_URL);
  }

  page(query: SystemsPageQuery): Observable<SystemsPage> {
    const params: Record<string, string | number> = { limit: query.limit };
    if (query.sort) params['sort'] = query.sort;
    if (query.order) params['order'] = query.order;
    if (query.q) params['q'] = query.q;
    if (query.status) params['status'] = query.status;
    if (query.customer !== undefined) params['customer'] = query.customer;
    if (query.cursor) params['cursor'] = query.cursor;
    if (query.ids) params['ids'] = query.ids.join(',');
    return this.http.get<SystemsPage>(SYSTEMS_PAGE_URL, { params });
  }

  /**
   * The detail, fetched again when the server names this system in `changes` (its status), when an alert
   * changes (its open alerts: `alerts` changes name alert ids, not systems) and every
   * SYSTEM_LAST_SEEN_MS (last seen moves with every report, which announces no change). One row: the
   * whole-fleet `systems.list` snapshot this followed before was 2.8 MiB at 10,000 systems.
   */
  system$(id: number): Observable<Refreshing<SystemDetail>> {
    return refreshing(
      () => this.http.get<SystemDetail>(systemUrl(id)),
      merge(this.changed$, interval(SYSTEM_LAST_SEEN_MS)),
      (change) => (change.topic === 'systems' && change.ids.includes(id)) || change.topic === 'alerts',
    );
  }

  /** The series the system reported in the last day. */
  series$(id: number): Observable<Refreshing<SeriesKey[]>> {
    return refreshing(() => this.http.get<SeriesKey[]>(`${systemUrl(id)}/series`), NEVER, onChangeOf('systems', id));
  }

  /**
   * The system's script checks as its agent last reported them, read again every SYSTEM_LAST_SEEN_MS
   * (a check's state moves with the reports, which announce no change) and when its status changes.
   */
  scriptChecks$(id: number): Observable<Refreshing<ScriptCheck[]>> {
    return refreshing(
      () => this.http.get<ScriptCheck[]>(`${systemUrl(id)}/script-checks`),
      merge(this.changed$, interval(SYSTEM_LAST_SEEN_MS)),
      onChangeOf('systems', id),
    );
  }

  /**
   * The image each of the system's containers runs, as its agent last listed them: read again every
   * SYSTEM_LAST_SEEN_MS (a container recreated from another image announces no change) and when its
   * status changes.
   */
  containerImages$(id: number): Observable<Refreshing<ContainerImage[]>> {
    return refreshing(
      () => this.http.get<ContainerImage[]>(`${systemUrl(id)}/container-images`),
      merge(this.changed$, interval(SYSTEM_LAST_SEEN_MS)),
      onChangeOf('systems', id),
    );
  }

  /**
   * The samples of `series` over the last `range` in one request (GET …/metrics/batch; a host with more
   * series than one request takes gets one request per MAX_BATCH_SERIES); the window moves on with each
   * reload, and between reloads every report the agent sends is appended live (`system:<id>`).
   */
  charts$(id: number, series: readonly SeriesKey[], range: ChartRange): Observable<Refreshing<ChartsData>> {
    const loads$ = refreshing(() => this.chartsOnce$(id, series, range), NEVER);
    return withLiveTail(loads$, this.live.messages<LiveReport>(`system:${id}`));
  }

  /** The samples of `series` over the last `range`, once: no reload, no live tail. */
  chartsOnce$(id: number, series: readonly SeriesKey[], range: ChartRange): Observable<ChartsData> {
    const window = rangeWindow(range, Date.now());
    const requests = chunks(series, MAX_BATCH_SERIES).map((part) =>
      this.http.get<ChartAnswer>(`${systemUrl(id)}/metrics/batch`, {
        params: {
          series: part.map((key) => (key.instance ? `${key.name}|${key.instance}` : key.name)),
          from: new Date(window.from).toISOString(),
          to: new Date(window.to).toISOString(),
        },
      }),
    );
    return forkJoin(requests).pipe(
      map((answers): ChartsData => ({
        ...window,
        source: answers[0]?.source ?? 'raw',
        bucketSeconds: answers[0]?.bucketSeconds ?? 1,
        series: answers.flatMap((answer) => answer.series),
      })),
    );
  }

  /** The system's stored forecast lines (refitted once an hour by the evaluation): once, no reload. */
  forecasts(id: number): Observable<SystemForecasts> {
    return this.http.get<SystemForecasts>(`${systemUrl(id)}/forecasts`);
  }

  update(id: number, changes: SystemChanges): Observable<SystemDetail> {
    return this.changed$.after(this.http.patch<SystemDetail>(systemUrl(id), changes));
  }

  /** Its samples go too. (No reload: the page of a deleted system is left, the list loads afresh.) */
  remove(id: number): Observable<void> {
    return this.http.delete<void>(systemUrl(id)).pipe(map(() => undefined));
  }

  /** Forgets the agent key (ADMIN): the next report with a valid enrollment key binds the host anew. */
  reEnroll(id: number): Observable<void> {
    return this.http.post<void>(`${systemUrl(id)}/re-enroll`, null).pipe(map(() => undefined));
  }
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < list.length; i += size) parts.push(list.slice(i, i + size));
  return parts;
}
