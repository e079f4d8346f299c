import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';
import type { AuditEntry, AuditPage } from '@contracts/audit';

// the JSON of GET /api/audit-log, from the schemas the server answers with (contracts/audit.ts)
export type { AuditPage };
/** One row of GET /api/audit-log (docs/api.md "Audit log"). */
export type AuditItem = AuditEntry;

/** The filters of the page; empty strings and null mean "any". */
export interface AuditFilters {
  actor: string;
  customer: number | null;
  action: string;
  target: string;
  /** `datetime-local` values (the browser's time zone). */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = { actor: '', customer: null, action: '', target: '', from: '', to: '' };
export const AUDIT_LOG_URL = '/api/audit-log';
export const AUDIT_PAGE_SIZE = 50;

/** The query of one page: the filters that are set, times as ISO 8601, and the cursor of the next page. */
export function auditParams(filters: AuditFilters, cursor: string | null): HttpParams {
  let params = new HttpParams().set('limit', AUDIT_PAGE_SIZE);
  for (const name of ['actor', 'action', 'target'] as const) {
    const value = filters[name].trim();
    if (value) params = params.set(name, value);
  }
  if (filters.customer !== null) params = params.set('customer', filters.customer);
  for (const name of ['from', 'to'] as const) {
    const at = filters[name] ? new Date(filters[name]) : null;
    if (at && !Number.isNaN(at.getTime())) params = params.set(name, at.toISOString());
  }
  if (cursor) params = params.set('cursor', cursor);
  return params;
}

@Injectable({ providedIn: 'root' })
export class AuditLogApi {
  private readonly http = inject(HttpClient);

  page(filters: AuditFilters, cursor: string | null): Observable<AuditPage> {
    return this.http.get<AuditPage>(AUDIT_LOG_URL, { params: auditParams(filters, cursor) });
  }
}

/** "name: "[sealed]" → "[sealed]"", one line per changed field, for the Changes column. */
export function changeLines(item: Pick<AuditItem, 'before' | 'after'>): string[] {
  const names = new Set([...Object.keys(item.before ?? {}), ...Object.keys(item.after ?? {})]);
  const show = (value: unknown) => (value === undefined ? '–' : JSON.stringify(value));
  return [...names].map((name) => {
    if (!item.before) return `${name}: ${show(item.after?.[name])}`;
    if (!item.after) return `${name}: ${show(item.before[name])} (removed)`;
    return `${name}: ${show(item.before[name])} → ${show(item.after[name])}`;
  });
}
