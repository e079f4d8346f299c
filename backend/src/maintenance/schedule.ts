/**
 * Does a maintenance window cover an instant? Pure, with the time zone rules of
 * the platform's Intl (no date library): a weekly window at 02:00 stays at 02:00
 * local time in the customer's zone across a DST change (db/migrations/0006).
 *
 * Local start times that do not exist (the hour skipped in spring) start at the
 * same wall-clock distance after the gap, 02:30 → 03:30; times that exist twice
 * (the hour repeated in autumn) start at the first of the two — the usual
 * "compatible" reading of calendars and of Temporal.
 */
import { wallClock, zonedInstant } from '../../../contracts/zoned-time.js';

// the zone arithmetic is shared with the console (one-off windows typed in the customer's zone)
export { wallClock, zonedInstant };

export type WindowSchedule =
  | { kind: 'once'; startsAt: Date; endsAt: Date }
  | { kind: 'weekly'; weekdays: readonly number[]; startTime: string; durationMinutes: number };

/** A `maintenance_windows` row's schedule (the evaluation and the availability report read the same columns). */
export function scheduleOfRow(row: {
  kind: string;
  starts_at: Date | null;
  ends_at: Date | null;
  weekdays: number[] | null;
  start_time: string | null;
  duration_minutes: number | null;
}): WindowSchedule {
  return row.kind === 'once'
    ? { kind: 'once', startsAt: row.starts_at as Date, endsAt: row.ends_at as Date }
    : {
        kind: 'weekly',
        weekdays: row.weekdays ?? [],
        startTime: row.start_time ?? '00:00',
        durationMinutes: row.duration_minutes ?? 0,
      };
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export function windowCovers(window: WindowSchedule, at: Date, timeZone: string): boolean {
  const t = at.getTime();
  if (window.kind === 'once') return window.startsAt.getTime() <= t && t < window.endsAt.getTime();

  const [hours = 0, minutes = 0] = window.startTime.split(':').map(Number);
  const duration = window.durationMinutes * MINUTE;
  const today = wallClock(t, timeZone);
  const todayMidnight = today - (today % DAY);
  // a window lasts at most 7 days, so an occurrence that covers `at` started within the last 7 local days
  for (let back = 0; back <= 7; back++) {
    const midnight = todayMidnight - back * DAY;
    if (!window.weekdays.includes(new Date(midnight).getUTCDay())) continue;
    const start = zonedInstant(midnight + hours * 3_600_000 + minutes * MINUTE, timeZone);
    if (start <= t && t < start + duration) return true;
  }
  return false;
}

/**
 * Every stretch [start, end) of absolute time (ms) during which `window` is open and that overlaps
 * [from, to): what the availability report leaves out as maintenance. Weekly occurrences are placed
 * exactly as `windowCovers` places them (same local start, same DST rules).
 */
export function windowOccurrences(
  window: WindowSchedule,
  from: number,
  to: number,
  timeZone: string,
): Array<[number, number]> {
  if (window.kind === 'once') {
    const start = window.startsAt.getTime();
    const end = window.endsAt.getTime();
    return start < to && end > from ? [[start, end]] : [];
  }
  const [hours = 0, minutes = 0] = window.startTime.split(':').map(Number);
  const duration = window.durationMinutes * MINUTE;
  const out: Array<[number, number]> = [];
  const first = wallClock(from, timeZone);
  // an occurrence lasts at most 7 days: one that overlaps `from` started within the 7 local days before it
  for (let midnight = first - (first % DAY) - 7 * DAY; ; midnight += DAY) {
    const start = zonedInstant(midnight + hours * 3_600_000 + minutes * MINUTE, timeZone);
    if (start >= to) break;
    if (!window.weekdays.includes(new Date(midnight).getUTCDay())) continue;
    if (start + duration > from) out.push([start, start + duration]);
  }
  return out;
}
