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
export type WindowSchedule =
  | { kind: 'once'; startsAt: Date; endsAt: Date }
  | { kind: 'weekly'; weekdays: readonly number[]; startTime: string; durationMinutes: number };

/** A `maintenance_windows` row's columns as PostgreSQL returns them (db/migrations/0006). */
export interface StoredWindow {
  kind: 'once' | 'weekly';
  starts_at: Date | null;
  ends_at: Date | null;
  weekdays: number[] | null;
  start_time: string | null;
  duration_minutes: number | null;
}

/** The schedule of a stored row (its CHECK constraints guarantee the columns of its kind). */
export function storedSchedule(row: StoredWindow): WindowSchedule {
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
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The wall-clock time in `timeZone` at instant `ms`, expressed as if it were UTC (ms). */
function wallClock(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** UTC offset of `timeZone` at instant `ms`, in ms (wall clock minus UTC), whole seconds. */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(whole, timeZone) - whole;
}

/** The instant at which the wall clock of `timeZone` shows `wall` (a UTC-encoded local time). */
export function zonedInstant(wall: number, timeZone: string): number {
  // a day either side of `wall` lies on both sides of any transition of that day
  const before = offsetAt(wall - DAY, timeZone);
  const after = offsetAt(wall + DAY, timeZone);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallClock(instant, timeZone) === wall)
    .sort((a, b) => a - b);
  // in a gap no instant shows `wall`: keep the offset from before the gap (a later instant)
  return valid[0] ?? wall - before;
}

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
