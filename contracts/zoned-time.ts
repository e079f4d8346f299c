/**
 * Wall-clock time in a time zone and back, with the platform's Intl (no date library): the
 * maintenance schedule and the reports place local times with it, and the console reads and writes
 * one-off maintenance windows in the customer's zone with it. Plain code, no zod: the console
 * imports it as a value.
 */
const DAY = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per use and zone, made once: Intl.DateTimeFormat is slow to build. */
function cached(use: string, timeZone: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  const key = `${use} ${timeZone}`;
  let format = formatters.get(key);
  if (!format) {
    format = make();
    formatters.set(key, format);
  }
  return format;
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  return cached(
    'wall',
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }),
  );
}

/** The wall-clock time in `timeZone` at instant `ms`, expressed as if it were UTC (ms). */
export function wallClock(ms: number, timeZone: string): number {
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

/** An exact instant as the server writes it into a text ("No report since 2026-11-28T10:14:44.479Z"). */
export const INSTANT_IN_TEXT = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;

/** "28 Nov 2026, 11:14 CET": an instant on the clock of `timeZone`, naming the zone (for mail and exports). */
export function zonedStamp(ms: number, timeZone: string): string {
  const format = cached(
    'stamp',
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone,
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
      }),
  );
  return format.format(ms);
}
