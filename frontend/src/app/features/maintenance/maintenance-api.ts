import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable, Subject, tap } from 'rxjs';

import { onTopics, Refreshing, refreshing } from '../../core/refresh';
import { ScopeType } from '../../shared/rules/rules-api';

export type WindowKind = 'once' | 'weekly';

/** A maintenance window as GET /api/maintenance-windows lists it. */
export interface MaintenanceWindow {
  id: number;
  name: string;
  customerId: number;
  customerName: string;
  /** The customer's time zone: a weekly window's start time is read in it. */
  timeZone: string;
  scope: { type: ScopeType; id: number; name: string | null };
  kind: WindowKind;
  startsAt: string | null;
  endsAt: string | null;
  /** 0 = Sunday … 6 = Saturday. */
  weekdays: number[] | null;
  startTime: string | null;
  durationMinutes: number | null;
  createdBy: { id: number; name: string } | null;
  /** Whether it suppresses alerts right now. */
  activeNow: boolean;
}

export interface WindowFields {
  name: string;
  scope: { type: ScopeType; id: number };
  kind: WindowKind;
  startsAt: string | null;
  endsAt: string | null;
  weekdays: number[] | null;
  startTime: string | null;
  durationMinutes: number | null;
}

export const WINDOWS_URL = '/api/maintenance-windows';
export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

@Injectable({ providedIn: 'root' })
export class MaintenanceApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Subject<void>();

  readonly windows$: Observable<Refreshing<MaintenanceWindow[]>> = refreshing(
    () => this.http.get<MaintenanceWindow[]>(WINDOWS_URL),
    this.changed$,
    onTopics('maintenance'),
  );

  create(fields: WindowFields): Observable<MaintenanceWindow> {
    return this.http.post<MaintenanceWindow>(WINDOWS_URL, fields).pipe(tap(() => this.changed$.next()));
  }

  update(id: number, fields: WindowFields): Observable<MaintenanceWindow> {
    return this.http.patch<MaintenanceWindow>(`${WINDOWS_URL}/${id}`, fields).pipe(tap(() => this.changed$.next()));
  }

  remove(id: number): Observable<void> {
    return this.http.delete<void>(`${WINDOWS_URL}/${id}`).pipe(
      map(() => undefined),
      tap(() => this.changed$.next()),
    );
  }
}

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "Once: 22 Nov 2026, 11:00 → 22 Nov 2026, 13:00" or "Weekly: Sun, Wed at 02:00 for 1 h 30 min (Europe/Berlin)". */
export function scheduleText(w: MaintenanceWindow): string {
  if (w.kind === 'once') {
    return `Once: ${WHEN.format(new Date(w.startsAt ?? 0))} → ${WHEN.format(new Date(w.endsAt ?? 0))}`;
  }
  const days = (w.weekdays ?? []).map((d) => WEEKDAYS[d]).join(', ');
  return `Weekly: ${days} at ${w.startTime} for ${minutesText(w.durationMinutes ?? 0)} (${w.timeZone})`;
}

export function minutesText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min';
}
