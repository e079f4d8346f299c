/**
 * The forecast part of a run: refreshes the lines that are due, then decides on the stored ones.
 * A line is fitted over whole hours, so it changes once an hour: each run refits at most
 * REFITS_PER_RUN systems per metric whose line ends before the current hour (never-fitted systems
 * first). A fleet of 10,000 systems is refitted within the first fifty runs of each hour, and no
 * run reads every system's history at once (a fit of 10,000 systems × 10 disks takes seconds).
 */
import type { Knex } from 'knex';
import { decideForecasts, directionOf, minBuckets, type ForecastDecision } from './forecasts.js';
import {
  dueForRefit,
  fitLines,
  HOUR_MS,
  loadForecastSettings,
  loadLines,
  storeLines,
  type FittedLine,
  type LineTarget,
} from './forecast-repo.js';
import { loadCustomers } from './repo.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import type { AlertRule, OpenAlert, SystemInfo } from './types.js';

export const REFITS_PER_RUN = 200;
/** How long the lines that may fire are kept between runs: they are read for the end of this time. */
const KEPT_MS = HOUR_MS;

/** The SQL filter of `loadLines`, for lines fitted in this run: whether `line` may fire by `at`. */
function mayFire(line: FittedLine, targets: readonly LineTarget[], minimum: number, at: Date): boolean {
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
 * The stored lines that may fire, kept between the runs of the whole fleet: read from the table once
 * an hour (for the hour's end, so they are a superset of what may fire in any run of that hour; the
 * decision checks each against its run's time), and brought up to date by each run's refits. A
 * steady run then reads none of the 100,000 stored lines. Rules or settings that change (another
 * `key`) read them again; a run whose transaction rolls back after a refit leaves its lines here,
 * and the next run refits the same systems (their refit rolled back too) and replaces them.
 */
export function createForecastLineCache() {
  let kept: { key: string; until: number; lines: Map<string, FittedLine> } | null = null;
  return {
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
  };
}

export type ForecastLineCache = ReturnType<typeof createForecastLineCache>;

export interface ForecastStepInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  open: readonly OpenAlert[];
  suppressed: Suppression;
  /** The customer a run evaluates on its own, or null for the whole fleet. */
  part: number | null;
  /** The lines kept between the runs of the whole fleet (null: read them every run). */
  cache: ForecastLineCache | null;
}

export async function forecastStep(trx: Knex, input: ForecastStepInput): Promise<ForecastDecision> {
  const forecasts = input.rules
    .allEnabled()
    .filter((rule) => rule.kind === 'forecast' && rule.metric !== null && rule.threshold !== null);
  const metrics = [...new Set(forecasts.map((rule) => rule.metric as string))];
  if (!metrics.length && !input.open.length) return { raise: [], resolve: [] };
  const settings = await loadForecastSettings(trx);
  const through = new Date(Math.floor(input.now.getTime() / HOUR_MS) * HOUR_MS);
  const targets = forecasts.map((rule) => ({
    metric: rule.metric as string,
    direction: directionOf(rule),
    threshold: rule.threshold as number,
    horizonHours: (rule.horizonSeconds ?? 0) / 3600,
  }));
  const minimum = minBuckets(settings);
  const { cache } = input;
  const key = JSON.stringify([targets, minimum]);
  for (const metric of metrics) {
    const due = await dueForRefit(trx, metric, through, settings.windowHours, input.part, REFITS_PER_RUN);
    if (!due.length) continue;
    const lines = await fitLines(trx, metric, through, settings.windowHours, { systemIds: due });
    await storeLines(trx, metric, due, through, settings.windowHours, lines);
    cache?.refitted(key, metric, due, lines, { targets, minimum });
  }
  // a run of one customer (after a failed run) reads its own lines; its refits still reach the cache
  const lines =
    cache && input.part === null
      ? await keptLines(trx, cache, key, input.now, targets, minimum)
      : await loadLines(trx, targets, input.now, minimum, input.part);
  const zones = new Map((await loadCustomers(trx)).map((c) => [c.id, c.timeZone]));
  return decideForecasts({ ...input, lines, settings, timeZoneOf: (id) => zones.get(id) ?? 'UTC' });
}

/** The cache's lines, read from the table for the end of the hour to come when it has none for `key`. */
async function keptLines(
  trx: Knex,
  cache: ForecastLineCache,
  key: string,
  now: Date,
  targets: readonly LineTarget[],
  minimum: number,
): Promise<FittedLine[]> {
  const kept = cache.lines(key, now);
  if (kept) return kept;
  const lines = await loadLines(trx, targets, new Date(now.getTime() + KEPT_MS), minimum, null);
  cache.keep(key, now, lines);
  return lines;
}
