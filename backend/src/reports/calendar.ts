/**
 * Days and months in a customer's time zone, as absolute instants: a report "for October" in
 * Europe/Berlin runs from 1 October 00:00 CEST to 1 November 00:00 CET, which is 31 days and one hour.
 * Built on the maintenance schedule's zone arithmetic (Intl only, no date library).
 */
import { wallClock, zonedInstant } from '../maintenance/schedule.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface LocalDate {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
}

/** `YYYY-MM-DD` as a calendar date, or null when it is not one (2026-02-30 is not). */
export function parseLocalDate(text: string): LocalDate | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return { year, month, day };
}

export const formatLocalDate = ({ year, month, day }: LocalDate): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** The instant at which `date` begins (local midnight; after the gap when midnight is skipped). */
export function startOfLocalDay(date: LocalDate, timeZone: string): number {
  return zonedInstant(Date.UTC(date.year, date.month - 1, date.day), timeZone);
}

/** The local date of instant `ms` in `timeZone`. */
export function localDateOf(ms: number, timeZone: string): LocalDate {
  const wall = new Date(wallClock(ms, timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/** The day after `date` (month and year roll over). */
export function nextDay({ year, month, day }: LocalDate): LocalDate {
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

/** [start, end) of a whole local month. */
export function monthRange(year: number, month: number, timeZone: string): [number, number] {
  const next = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
  return [startOfLocalDay({ year, month, day: 1 }, timeZone), startOfLocalDay({ ...next, day: 1 }, timeZone)];
}

/** The local month before the one that contains `ms`, as `{year, month}`. */
export function previousMonthOf(ms: number, timeZone: string): { year: number; month: number } {
  const { year, month } = localDateOf(ms, timeZone);
  return month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
}

export const monthKey = (year: number, month: number): string => `${year}-${String(month).padStart(2, '0')}`;

/** The zone itself, or UTC for a name Intl does not know (edited in by SQL): a report rather than a failure. */
export function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}
