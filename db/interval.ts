/**
 * PostgreSQL interval strings as the retention variables accept them (docs/operations.md "Retention variables")
 * ("12 hours", "14 days", "6 months", "1 day 12 hours"). We accept only the
 * plain "<integer> <unit>" form so that what PostgreSQL stores is exactly what
 * the operator wrote, and we can also compute an approximate length in ms for
 * the app's own time windows.
 */
const UNIT_MS: Record<string, number> = {
  microsecond: 0.001,
  millisecond: 1,
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  // PostgreSQL's own justify rules: a month is 30 days, a year 365.25 days.
  month: 30 * 86_400_000,
  year: 365.25 * 86_400_000,
};

const PART = /(\d+)\s*([a-z]+)/g;
const WHOLE = /^\s*(\d+\s*[a-z]+\s*)+$/;

export interface Interval {
  /** Normalised text handed to PostgreSQL, e.g. "7 days". */
  readonly text: string;
  /** Approximate length in milliseconds (months of 30 days). */
  readonly ms: number;
}

/** Parses an interval string; returns null when it is not one we accept. */
export function parseInterval(raw: string): Interval | null {
  const value = raw.trim().toLowerCase();
  if (!WHOLE.test(value)) return null;
  let ms = 0;
  const parts: string[] = [];
  for (const match of value.matchAll(PART)) {
    const amount = Number(match[1]);
    const unit = (match[2] ?? '').replace(/s$/, '');
    const unitMs = UNIT_MS[unit];
    if (unitMs === undefined || !Number.isSafeInteger(amount)) return null;
    ms += amount * unitMs;
    parts.push(`${amount} ${unit}${amount === 1 ? '' : 's'}`);
  }
  if (parts.length === 0 || ms <= 0) return null;
  return { text: parts.join(' '), ms };
}
