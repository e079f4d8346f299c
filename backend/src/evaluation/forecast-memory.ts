/**
 * What the forecast step keeps in memory between the runs of the whole fleet, so a steady run sends
 * no forecast statement at all: when each system's lines were last fitted (read from
 * `forecast_refits` once, then kept up to date by the refits), and the stored lines that may fire
 * (read from `forecast_fits` once an hour). A run whose transaction fails forgets both (`forget`):
 * the next run reads them again as the database has them, so nothing a rolled-back run did is
 * believed. Runs of one customer (after a failed run) read and keep nothing here.
 */
import { HOUR_MS, type FittedLine, type LineTarget } from './forecast-repo.js';
import type { SystemInfo } from './types.js';

/** How long the lines that may fire are kept between runs: they are read for the end of this time. */
export const KEPT_MS = HOUR_MS;

/**
 * Runs an hour the refits of the fleet are spread over (the scheduler's runs are a minute apart; a
 * few to spare for a slow or missed run): 10,000 systems are 182 a run, instead of 200 a run in the
 * first fifty.
 */
export const REFIT_RUNS_AN_HOUR = 55;
/** A small fleet is refitted at once: fewer due systems than this are all refitted in one run. */
export const REFITS_AT_LEAST = 20;

/** When a system's lines of one metric were last fitted: the window's end (ms) and its hours. */
export interface Refit {
  through: number;
  windowHours: number;
}

/** Each system's last refit of one metric, by system id. */
export type RefitBook = Map<number, Refit>;

/** The book of `forecast_refits` rows. */
export const refitBookOf = (rows: readonly { systemId: number; through: Date; windowHours: number }[]): RefitBook =>
  new Map(rows.map((r) => [r.systemId, { through: r.through.getTime(), windowHours: r.windowHours }]));

/** How many systems a run refits per metric: a share of the reporting fleet, so an hour covers it. */
export function refitsPerRun(reporting: number): number {
  return Math.max(REFITS_AT_LEAST, Math.ceil(reporting / REFIT_RUNS_AN_HOUR));
}

/**
 * The reporting systems whose lines are not fitted through `through` over `windowHours`, never-fitted
 * first, then the longest ago (by id within each): at most `limit`.
 */
export function dueSystems(
  book: RefitBook,
  systems: Iterable<SystemInfo>,
  through: number,
  windowHours: number,
  limit: number,
): number[] {
  const never: number[] = [];
  const stale: { id: number; through: number }[] = [];
  for (const system of systems) {
    if (system.status === 'PENDING') continue;
    const refit = book.get(system.id);
    if (!refit) never.push(system.id);
    else if (refit.through < through || refit.windowHours !== windowHours)
      stale.push({ id: system.id, through: refit.through });
  }
  if (never.length >= limit) return never.sort((a, b) => a - b).slice(0, limit);
  stale.sort((a, b) => a.through - b.through || a.id - b.id);
  return [...never.sort((a, b) => a - b), ...stale.slice(0, limit - never.length).map((s) => s.id)];
}

/** Whether `line` may fire by `at` (the SQL filter of `loadLines`, for lines fitted in this run). */
export function mayFire(line: FittedLine, targets: readonly LineTarget[], minimum: number, at: Date): boolean {
  if (line.buckets < minimum) return false;
  const hoursSince = (at.getTime() - line.through.getTime()) / HOUR_MS;
  return targets.some(
    (t) =>
      t.metric === line.metric &&
      t.direction * line.slopePerH > 0 &&
      t.direction * (t.threshold - line.level - line.slopePerH * (hoursSince + t.horizonHours)) <= 1e-9,
  );
}

const lineKey = (line: Pick<FittedLine, 'systemId' | 'metric' | 'instance'>) =>
  `${line.systemId}\n${line.metric}\n${line.instance}`;

/**
 * The memory of the whole fleet's runs. The lines that may fire are read for the hour's end, so
 * they are a superset of what may fire in any run of that hour (the decision checks each against
 * its run's time); rules or settings that change (another `key`) read them again.
 */
export function createForecastMemory() {
  let kept: { key: string; until: number; lines: Map<string, FittedLine> } | null = null;
  const books = new Map<string, RefitBook>();
  return {
    /** The refits of `metric`, read by `load` when none are kept. */
    async refits(
      metric: string,
      load: () => Promise<{ systemId: number; through: Date; windowHours: number }[]>,
    ): Promise<RefitBook> {
      let book = books.get(metric);
      if (!book) {
        book = refitBookOf(await load());
        books.set(metric, book);
      }
      return book;
    },
    /** The kept lines for `key`, or null when they must be read (none kept, other rules, the hour is over). */
    lines(key: string, now: Date): FittedLine[] | null {
      return kept && kept.key === key && now.getTime() < kept.until ? [...kept.lines.values()] : null;
    },
    keep(key: string, now: Date, lines: readonly FittedLine[]): void {
      kept = { key, until: now.getTime() + KEPT_MS, lines: new Map(lines.map((line) => [lineKey(line), line])) };
    },
    /** A refit replaced the lines of `metric` of these systems: the new ones that may fire replace the old. */
    refitted(
      key: string,
      metric: string,
      systemIds: readonly number[],
      fresh: readonly FittedLine[],
      filter: { targets: readonly LineTarget[]; minimum: number },
    ): void {
      if (!kept || kept.key !== key) return;
      const lines = kept.lines;
      const refitted = new Set(systemIds);
      for (const [id, line] of lines) if (line.metric === metric && refitted.has(line.systemId)) lines.delete(id);
      const until = new Date(kept.until);
      for (const line of fresh)
        if (mayFire(line, filter.targets, filter.minimum, until)) lines.set(lineKey(line), line);
    },
    /** A run failed: what it changed in memory may have been rolled back, so everything is read again. */
    forget(): void {
      kept = null;
      books.clear();
    },
  };
}

export type ForecastMemory = ReturnType<typeof createForecastMemory>;
