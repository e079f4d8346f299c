/**
 * The forecast part of a run: refreshes the lines that are due, then decides on the stored ones.
 * A line is fitted over whole hours, so it changes once an hour: each run refits, per metric, a
 * share of the reporting fleet whose lines end before the current hour (never-fitted systems
 * first; `refitsPerRun`), so the refits of each hour are spread over its runs and no run reads every
 * system's history at once (a fit of 10,000 systems × 10 disks takes seconds). Which systems are
 * due and which lines may fire are kept in memory between the runs of the whole fleet
 * (forecast-memory.ts): a run that refits nothing sends no forecast statement.
 */
import type { Knex } from 'knex';
import type { ForecastSettings } from '../../../contracts/settings.js';
import { HOUR_MS, type FittedLine, type LineTarget } from './forecast-repo.js';
import { dueSystems, KEPT_MS, refitBookOf, refitsPerRun, type ForecastMemory } from './forecast-memory.js';
import { decideForecasts, directionOf, minBuckets, type ForecastDecision } from './forecasts.js';
import type { EvaluationRepos } from './repos.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import type { AlertRule, OpenAlert, SystemInfo } from './types.js';

export interface ForecastStepInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  open: readonly OpenAlert[];
  suppressed: Suppression;
  settings: ForecastSettings;
  timeZoneOf: (customerId: number) => string;
  /** The customer a run evaluates on its own, or null for the whole fleet. */
  part: number | null;
  /** What the runs of the whole fleet keep between them (null: read everything every run). */
  memory: ForecastMemory | null;
}

type StepRepos = Pick<EvaluationRepos, 'forecasts'>;

export async function forecastStep(repos: StepRepos, trx: Knex, input: ForecastStepInput): Promise<ForecastDecision> {
  const forecasts = input.rules
    .allEnabled()
    .filter((rule) => rule.kind === 'forecast' && rule.metric !== null && rule.threshold !== null);
  const metrics = [...new Set(forecasts.map((rule) => rule.metric as string))];
  if (!metrics.length && !input.open.length) return { raise: [], resolve: [] };
  const { settings } = input;
  const targets = forecasts.map((rule) => ({
    metric: rule.metric as string,
    direction: directionOf(rule),
    threshold: rule.threshold as number,
    horizonHours: (rule.horizonSeconds ?? 0) / 3600,
  }));
  const minimum = minBuckets(settings);
  // a run of one customer (after a failed run) reads what it needs and keeps nothing
  const memory = input.part === null ? input.memory : null;
  const key = JSON.stringify([targets, minimum]);
  for (const metric of metrics) {
    const fresh = await refitDue(repos, trx, input, metric, memory);
    if (fresh) memory?.refitted(key, metric, fresh.systemIds, fresh.lines, { targets, minimum });
  }
  const lines = memory
    ? await keptLines(repos, trx, memory, key, input.now, targets, minimum)
    : await repos.forecasts.loadLines(targets, input.now, minimum, input.part, trx);
  return decideForecasts({ ...input, lines });
}

/** Refits the systems of `metric` that are due this run (a share of the fleet), and notes them refitted. */
async function refitDue(
  repos: StepRepos,
  trx: Knex,
  input: ForecastStepInput,
  metric: string,
  memory: ForecastMemory | null,
): Promise<{ systemIds: number[]; lines: FittedLine[] } | null> {
  const load = () => repos.forecasts.refitsOf(metric, input.part, trx);
  const book = memory ? await memory.refits(metric, load) : refitBookOf(await load());
  const through = Math.floor(input.now.getTime() / HOUR_MS) * HOUR_MS;
  const { windowHours } = input.settings;
  const systems = [...input.systems.values()];
  const reporting = systems.filter((system) => system.status !== 'PENDING').length;
  const due = dueSystems(book, systems, through, windowHours, refitsPerRun(reporting));
  if (!due.length) return null;
  const lines = await repos.forecasts.refitLines(metric, due, new Date(through), windowHours, trx);
  for (const id of due) book.set(id, { through, windowHours });
  return { systemIds: due, lines };
}

/** The kept lines, read from the table for the end of the hour to come when there are none for `key`. */
async function keptLines(
  repos: StepRepos,
  trx: Knex,
  memory: ForecastMemory,
  key: string,
  now: Date,
  targets: readonly LineTarget[],
  minimum: number,
): Promise<FittedLine[]> {
  const kept = memory.lines(key, now);
  if (kept) return kept;
  const lines = await repos.forecasts.loadLines(targets, new Date(now.getTime() + KEPT_MS), minimum, null, trx);
  memory.keep(key, now, lines);
  return lines;
}
