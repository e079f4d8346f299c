import { Injectable } from '@angular/core';

import { Collection } from '@console/core/collection';
import { onTopics } from '@console/core/refresh';
import type { MaintenanceWindow, WindowFields } from '@contracts/maintenance';

// the JSON of /api/maintenance-windows, from the schemas the server answers and reads with (contracts/maintenance.ts)
export type { MaintenanceWindow, WindowFields };
export type WindowKind = MaintenanceWindow['kind'];

export const WINDOWS_URL = '/api/maintenance-windows';
export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

@Injectable({ providedIn: 'root' })
export class MaintenanceApi extends Collection<MaintenanceWindow, WindowFields, WindowFields> {
  readonly windows$ = this.list$(onTopics('maintenance'));

  constructor() {
    super(WINDOWS_URL);
  }
}

/**
 * In the customer's zone, as the window is entered: "Once: 22 Nov 2026, 11:00 → 22 Nov 2026, 13:00
 * (Europe/Berlin)" or "Weekly: Sun, Wed at 02:00 for 1 h 30 min (Europe/Berlin)".
 */
export function scheduleText(w: MaintenanceWindow): string {
  if (w.kind === 'once') {
    const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: w.timeZone });
    return `Once: ${when.format(new Date(w.startsAt ?? 0))} → ${when.format(new Date(w.endsAt ?? 0))} (${w.timeZone})`;
  }
  const days = (w.weekdays ?? []).map((d) => WEEKDAYS[d]).join(', ');
  return `Weekly: ${days} at ${w.startTime} for ${minutesText(w.durationMinutes ?? 0)} (${w.timeZone})`;
}

export function minutesText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min';
}
