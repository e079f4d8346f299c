/**
 * The forecast part of a run: refreshes the lines that are due, then decides on the stored ones.
 * A line is fitted over whole hours, so it changes once an hour: each run refits at most
 * REFITS_PER_RUN systems per metric whose line ends before the current hour (never-fitted systems
 * first). A fleet of 10,000 systems is refitted within the first fifty runs of each hour, and no
 * run reads every system's history at once (a fit of 10,000 systems × 10 disks takes seconds).
 */
import type { Knex } from 'knex';
import { decideForecasts, directionOf, minBuckets, type ForecastDecision } from './forecasts.js';
import { HOUR_MS } from './forecast-repo.js';
import type { EvaluationRepos } from './repos.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import type { AlertRule, OpenAlert, SystemInfo } from './types.js';

export const REFITS_PER_RUN = 200;

export interface ForecastStepInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  open: readonly OpenAlert[];
  suppressed: Suppression;
  /** The customer a run evaluates on its own, or null for the whole fleet. */
  part: number | null;
}

export async function forecastStep(
  repos: Pick<EvaluationRepos, 'forecasts' | 'run'>,
  trx: Knex,
  input: ForecastStepInput,
): Promise<ForecastDecision> {
  const forecasts = input.rules
    .allEnabled()
    .filter((rule) => rule.kind === 'forecast' && rule.metric !== null && rule.threshold !== null);
  const metrics = [...new Set(forecasts.map((rule) => rule.metric as string))];
  if (!metrics.length && !input.open.length) return { raise: [], resolve: [] };
  const settings = await repos.forecasts.loadForecastSettings(trx);
  const through = new Date(Math.floor(input.now.getTime() / HOUR_MS) * HOUR_MS);
  for (const metric of metrics) {
    const due = await repos.forecasts.dueForRefit(
      metric,
      through,
      settings.windowHours,
      input.part,
      REFITS_PER_RUN,
      trx,
    );
    if (!due.length) continue;
    const lines = await repos.forecasts.fitLines(metric, through, settings.windowHours, { systemIds: due }, trx);
    await repos.forecasts.storeLines(metric, due, through, settings.windowHours, lines, trx);
  }
  const targets = forecasts.map((rule) => ({
    metric: rule.metric as string,
    direction: directionOf(rule),
    threshold: rule.threshold as number,
    horizonHours: (rule.horizonSeconds ?? 0) / 3600,
  }));
  const lines = await repos.forecasts.loadLines(targets, input.now, minBuckets(settings), input.part, trx);
  const zones = new Map((await repos.run.loadCustomers(trx)).map((c) => [c.id, c.timeZone]));
  return decideForecasts({ ...input, lines, settings, timeZoneOf: (id) => zones.get(id) ?? 'UTC' });
}
