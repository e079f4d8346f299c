import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Severity } from '@console/core/auth';
import { Changes, onChangeOf, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { AlertDetail } from '@contracts/alerts';

// the JSON of /api/alerts, from the schemas the server answers with (contracts/alerts.ts)
export type AlertState = AlertDetail['state'];
/** One alert as GET /api/alerts lists it (docs/api.md "Alerts, rules, maintenance"). */
export type Alert = AlertDetail;

export interface AlertFilter {
  state?: AlertState;
  customer?: number | null;
  system?: number | null;
  severity?: Severity | null;
  limit?: number;
  before?: number;
}

export const ALERTS_URL = '/api/alerts';
export const PAGE_SIZE = 100;

/** The query string of a filter; empty filters are left out. */
export function alertParams(filter: AlertFilter): HttpParams {
  let params = new HttpParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value !== null && value !== undefined && value !== '') params = params.set(key, String(value));
  }
  return params;
}

/** Alerts of the customers the account sees, and the acknowledgement. */
@Injectable({ providedIn: 'root' })
export class AlertsApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Changes();

  /** The alerts matching a filter, kept fresh (the polling seam the live channel replaces). */
  alerts$(filter: AlertFilter): Observable<Refreshing<Alert[]>> {
    return refreshing(() => this.list(filter), this.changed$, onTopics('alerts'));
  }

  list(filter: AlertFilter): Observable<Alert[]> {
    return this.http.get<Alert[]>(ALERTS_URL, { params: alertParams(filter) });
  }

  alert$(id: number): Observable<Refreshing<Alert>> {
    return refreshing(() => this.http.get<Alert>(`${ALERTS_URL}/${id}`), this.changed$, onChangeOf('alerts', id));
  }

  /**
   * The alert stays open, marked acknowledged with who, when and the note; with `until` (ISO 8601, at
   * most 30 days ahead) only until then: repeat and escalation resume afterwards.
   */
  acknowledge(id: number, note: string, until?: string | null): Observable<Alert> {
    const body: { note: string | null; until?: string } = { note: note.trim() || null };
    if (until) body.until = until;
    return this.changed$.after(this.http.post<Alert>(`${ALERTS_URL}/${id}/ack`, body));
  }
}

export const SEVERITY_LABELS: Record<Severity, string> = { CRITICAL: 'Critical', WARNING: 'Warning', INFO: 'Info' };
export const SEVERITY_CHIPS: Record<Severity, string> = { CRITICAL: 'chip--error', WARNING: 'chip--warn', INFO: '' };
