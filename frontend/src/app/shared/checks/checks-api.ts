import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { merge, Observable, tap, throttleTime } from 'rxjs';

import { LiveService } from '@console/core/live';
import { Changes, LIVE_REFRESH_MIN_MS, LiveChange, Refreshing, refreshing } from '@console/core/refresh';
import type {
  Check,
  CheckChanges,
  CheckCreate,
  CheckResult,
  ChecksSummary,
  CheckTryBody,
  CheckSettings,
  DnsSettings,
  HttpSettings,
} from '@contracts/checks';

// the JSON of /api/checks, from the schemas the server answers with (contracts/checks.ts); the lists
// of choices are written out here (the contract's constants would bring its schema library along)
export type { Check, CheckResult, ChecksSummary, CheckSettings };
export type CheckType = Check['type'];
export type CheckState = Check['state'];
export type HttpMethod = HttpSettings['method'];
export type DnsRecordType = DnsSettings['recordType'];

export const CHECK_TYPES: readonly CheckType[] = ['http', 'tcp', 'ping', 'dns'];
/** Worst first: the order of the filter and of a customer's line. */
export const CHECK_STATES: readonly CheckState[] = ['DOWN', 'DEGRADED', 'PENDING', 'UP', 'PAUSED'];
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'OPTIONS'];
export const DNS_RECORD_TYPES: readonly DnsRecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'CAA'];
/** The interval's bounds the server holds (20 s to 1 h). */
export const MIN_INTERVAL_S = 20;
export const MAX_INTERVAL_S = 3600;

/** What the dialog sends: the schema's input (its defaults filled by the server). */
export type CheckFields = Omit<Partial<CheckCreate>, 'settings'> & {
  customerId: number;
  name: string;
  settings: unknown;
};
export type CheckEdit = Omit<CheckChanges, 'settings'> & { settings?: unknown };
export type CheckTry = Omit<Partial<CheckTryBody>, 'settings'> & { customerId: number; settings: unknown };

export const CHECKS_URL = '/api/checks';
export const CHECKS_SUMMARY_URL = `${CHECKS_URL}/summary`;
export const CHECKS_TRY_URL = `${CHECKS_URL}/try`;
export const checkUrl = (id: number): string => `${CHECKS_URL}/${id}`;

export const CHECK_TYPE_LABELS: Record<CheckType, string> = {
  http: 'HTTP(S)',
  tcp: 'TCP port',
  ping: 'Ping',
  dns: 'DNS',
};

export const CHECK_STATE_LABELS: Record<CheckState, string> = {
  UP: 'Up',
  DOWN: 'Down',
  DEGRADED: 'Degraded',
  PENDING: 'Pending',
  PAUSED: 'Paused',
};

/**
 * A check is a system of its own (docs/api.md "Network checks"): the server names it in a `systems`
 * change when its state changes or it is edited. Which of those are checks the console cannot tell
 * from the ids, so the checks are read again on any (throttled like every live reload).
 */
const onSystems = (change: LiveChange): boolean => change.topic === 'systems';

/** The agent's system a location names (`system:<id>`), or null for the server's. */
const agentOf = (location: string): number | null =>
  location.startsWith('system:') ? Number(location.slice('system:'.length)) : null;

/** Network checks: the list, one check, the counts per customer, the changes and "Try it now". */
@Injectable({ providedIn: 'root' })
export class ChecksApi {
  private readonly http = inject(HttpClient);
  private readonly live = inject(LiveService);
  private readonly changed$ = new Changes();

  /** Every check the account may see, kept current (a state change is announced live). */
  readonly checks$: Observable<Refreshing<Check[]>> = refreshing(() => this.list(), this.changed$, onSystems);

  /** How many checks of each customer are in each state (the Overview). */
  readonly summary$: Observable<Refreshing<ChecksSummary>> = refreshing(
    () => this.http.get<ChecksSummary>(CHECKS_SUMMARY_URL),
    this.changed$,
    onSystems,
  );

  list(customerId?: number): Observable<Check[]> {
    const params = customerId === undefined ? undefined : new HttpParams().set('customer', customerId);
    return this.http.get<Check[]>(CHECKS_URL, { params });
  }

  /**
   * One check: again on its state change, and on each of its runs for the newest result of each
   * place. A stored run comes live as a report of the check's system (`system:<id>`, the topic its
   * charts follow: one subscription for both), at most one read every LIVE_REFRESH_MIN_MS. A change of
   * an agent it runs from (renamed, deleted: the server names its places) reads it again too.
   */
  check$(id: number): Observable<Refreshing<Check>> {
    const runs$ = this.live
      .messages(`system:${id}`)
      .pipe(throttleTime(LIVE_REFRESH_MIN_MS, undefined, { leading: true, trailing: true }));
    let systems = new Set([id]);
    return refreshing(
      () =>
        this.http
          .get<Check>(checkUrl(id))
          .pipe(tap((check) => (systems = new Set([id, ...check.locations.map(agentOf).filter((a) => a !== null)])))),
      merge(this.changed$, runs$),
      (change) => change.topic === 'systems' && change.ids.some((changed) => systems.has(changed)),
    );
  }

  create(fields: CheckFields): Observable<Check> {
    return this.changed$.after(this.http.post<Check>(CHECKS_URL, fields));
  }

  update(id: number, changes: CheckEdit): Observable<Check> {
    return this.changed$.after(this.http.patch<Check>(checkUrl(id), changes));
  }

  /** Its results and alerts go too. */
  remove(id: number): Observable<void> {
    return this.changed$.deleted(this.http.delete(checkUrl(id)));
  }

  /** Runs the settings once from the server: what was measured, never the body. */
  tryNow(body: CheckTry): Observable<CheckResult> {
    return this.http.post<CheckResult>(CHECKS_TRY_URL, body);
  }
}
