/**
 * The evaluation run and the rule preview beside its RuleBook, built once by the composition root.
 * Only the cron endpoint starts a run, never a timer.
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { EvaluationMetrics } from '../lib/self-metrics.js';
import type { Mailer } from '../mail/mailer.js';
import type { AlertNotifier } from '../notifications/service.js';
import type { RulesService } from '../rules/service.js';
import { createFlappingRepo } from './flapping-repo.js';
import { createForecastRepo } from './forecast-repo.js';
import type { ForecastSettingsSource } from './forecasts.js';
import { createRunIncidentsRepo } from './incidents-repo.js';
import { createObservationsRepo } from './observations-repo.js';
import { createPreviewRepo } from './preview-repo.js';
import { createRunRepo } from './repo.js';
import type { EvaluationRepos } from './repos.js';
import { rulePreviewRoutes } from './preview-routes.js';
import { createRulePreview } from './preview.js';
import { forecastRoutes } from './forecast-routes.js';
import { evaluationRoutes } from './routes.js';
import { createSystemForecasts } from './system-forecasts.js';
import { createEvaluation, currentSuppression } from './service.js';

export interface EvaluationAssemblyDeps {
  db: Knex;
  bus: Bus;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  notifier: AlertNotifier;
  rules: RulesService;
  /** The settings feature's forecast settings (window, data share). */
  forecastSettings: ForecastSettingsSource;
  cronSecret: string | null;
  metrics: EvaluationMetrics;
}

/** The run's repos, each built once on the pool; the run hands them its transaction. */
export function createEvaluationRepos(db: Knex): EvaluationRepos {
  return {
    run: createRunRepo(db),
    observations: createObservationsRepo(db),
    incidents: createRunIncidentsRepo(db),
    flapping: createFlappingRepo(db),
    forecasts: createForecastRepo(db),
  };
}

export function assembleEvaluation(deps: EvaluationAssemblyDeps) {
  const { db, bus, clock, log, mailer, notifier, metrics } = deps;
  const settings = deps.forecastSettings;
  const repos = createEvaluationRepos(db);
  const evaluation = createEvaluation({
    db,
    repos,
    bus,
    clock,
    log,
    mailer,
    notifier,
    metrics,
    forecastSettings: settings,
  });
  const preview = createRulePreview({ repo: createPreviewRepo(db, repos.forecasts), clock, settings });
  return {
    /** The suppression in force now (maintenance, inactive customers): acknowledgements notify under it. */
    suppressionNow: () => currentSuppression(repos.run, clock.now()),
    /** The scheduler's bearer is CRON_SECRET, not an API token: mounted before authentication. */
    cronRoutes: mountRoutes(evaluationRoutes, { evaluation, cronSecret: deps.cronSecret, log }),
    previewRoutes: mountRoutes(rulePreviewRoutes, { rules: deps.rules, preview }),
    /** A system's stored forecast lines, for its page's chart. */
    forecastRoutes: mountRoutes(forecastRoutes, createSystemForecasts({ repos, clock, settings })),
    /** Waits for a run in progress before the pool closes. */
    settled: () => evaluation.settled(),
  };
}
