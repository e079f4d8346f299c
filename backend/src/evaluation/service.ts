/**
 * The evaluation run (docs/api.md "Evaluation": `POST /api/cron/evaluate-alerts`, called once a
 * minute by the scheduler; nothing in the app runs it on a timer). In ONE
 * transaction under a PostgreSQL advisory lock: offline detection, metric
 * rules, event rules, suppression, system status from the worst open alert,
 * notifications (routed channels, repeats, escalations, expired acknowledgements)
 * and the per-cluster counts. After the commit, in the background (the answer
 * waits for no live update, SMTP server or webhook): every transition published
 * once, in order, status changes published, notifications sent outside the lock.
 *
 * Overlapping calls never both run: in this process they queue (the embedded
 * database has a single connection), across processes the advisory lock makes
 * the second wait (bounded by lock_timeout); each caller gets its own run's figures.
 */
import type { Knex } from 'knex';
import { publishAlertTransition } from '../alerts/alert-json.js';
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { NO_EVALUATION_METRICS, type EvaluationMetrics } from '../lib/self-metrics.js';
import { retryTransient } from '../lib/transient.js';
import type { Mailer } from '../mail/mailer.js';
import type { AlertNotifier } from '../notifications/service.js';
import type { EvaluationRepos } from './repos.js';
import { mergeParts, type Committed, type RunResult } from './run-result.js';
import { DEFAULT_LOCK_TIMEOUT_MS, startRun } from './run-start.js';
import { createForecastMemory } from './forecast-memory.js';
import type { ForecastSettingsSource } from './forecasts.js';
import { evaluate, type RunContext } from './run-steps.js';
import { buildSuppression, type Suppression } from './suppression.js';

export interface EvaluationDeps {
  db: Knex;
  repos: EvaluationRepos;
  bus: Bus;
  clock: Clock;
  log: Logger;
  mailer: Pick<Mailer, 'isEnabled'>;
  notifier: AlertNotifier;
  /** The forecast settings, read before each run's transaction. */
  forecastSettings: ForecastSettingsSource;
  /** How long a run waits for another process's run to finish (ms). */
  lockTimeoutMs?: number;
  /** Argus's own metrics: run durations and outcomes, alerts raised and resolved. */
  metrics?: EvaluationMetrics;
  /** false: keep nothing of the forecasts between runs, read it all every run (the bench's "before"). */
  keepForecastLines?: boolean;
}

/** Suppression as the next run would see it now (sends outside a run, e.g. after an acknowledgement). */
export async function currentSuppression(repo: EvaluationRepos['run'], now: Date): Promise<Suppression> {
  return buildSuppression(await repo.loadCustomers(), await repo.loadMaintenanceWindows(), now);
}

export function createEvaluation(evaluationDeps: EvaluationDeps) {
  const deps = {
    ...evaluationDeps,
    forecastMemory: evaluationDeps.keepForecastLines === false ? null : createForecastMemory(),
  };
  const { db, bus, clock, log, mailer, notifier } = deps;
  const repo = deps.repos.run;
  const metrics = deps.metrics ?? NO_EVALUATION_METRICS;
  let queue: Promise<unknown> = Promise.resolve();
  let published: Promise<void> = Promise.resolve();

  /** One run, timed on the process's own clock (a test's fake clock does not move during it). */
  async function measuredRun(): Promise<RunResult> {
    const started = performance.now();
    try {
      const result = await runOnce();
      const { triggered, resolved } = result.alerts;
      const outcome = result.failedCustomers.length ? 'partial' : 'succeeded';
      metrics.run(outcome, (performance.now() - started) / 1000, { raised: triggered, resolved });
      await remember({ failed: result.failedCustomers.length });
      return result;
    } catch (error) {
      metrics.run('failed', (performance.now() - started) / 1000, { raised: 0, resolved: 0 });
      await remember({ failed: 'all' });
      throw error;
    }
  }

  /** What the health endpoint shows of the runs (stored, so every process's health sees the latest run). */
  async function remember(outcome: { failed: number | 'all' }): Promise<void> {
    await repo.saveRunOutcome({ at: clock.now(), ...outcome }).catch((error: unknown) => {
      log.warn({ err: error }, 'Could not record the evaluation run outcome');
    });
  }

  /**
   * After a failed run: the bookkeeping once, then each customer in its own transaction, so one
   * customer's failing work (a statement that fails on its data) does not stop the rest of the fleet.
   * Throws when no customer could be evaluated.
   */
  async function runPerCustomer(run: Omit<RunContext, 'part'>, failure: unknown): Promise<Committed> {
    const { now } = run;
    const previousRun = await db.transaction((trx) =>
      startRun(repo, trx, now, deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS),
    );
    const customers = (await repo.loadCustomers()).map((c) => c.id);
    const parts: Committed[] = [];
    const failed: number[] = [];
    for (const customerId of customers) {
      try {
        const part = { customerId, previousRun };
        parts.push(await retryTransient(() => db.transaction((trx) => evaluate(trx, { ...run, part }, deps))));
      } catch (error) {
        log.error({ err: error, customer: customerId }, 'Evaluation failed for a customer; the others were evaluated');
        failed.push(customerId);
      }
    }
    if (!parts.length) throw failure;
    return mergeParts(parts, failed, now);
  }

  /** A committed run's bus events, after the previous run's (bus.publish never rejects). */
  async function publish(committed: Committed): Promise<void> {
    // sent without waiting for each answer (one connection keeps their order): 10,000 one by one took ~4 s
    await Promise.all(committed.transitions.map(({ type, alert }) => publishAlertTransition(bus, type, alert)));
    await Promise.all(committed.statusChanged.map((id) => bus.publish('systems', { id })));
    for (const customerId of committed.incidentCustomers)
      await publishChange(bus, { topic: 'incidents', ids: [customerId], reach: { customerId } });
  }

  async function runOnce(): Promise<RunResult> {
    const now = clock.now();
    // read before the transaction: with one pooled connection nothing may wait for a second one inside it
    const mailOn = await mailer.isEnabled().catch((error: unknown) => {
      log.warn({ err: error }, 'Could not read whether mail is enabled: no alert e-mails this run');
      return false;
    });
    const run = { now, mailOn, forecastSettings: await deps.forecastSettings.get() };
    // a report committing just as its system is marked offline can deadlock with the run: run it again
    let committed: Committed;
    try {
      committed = await retryTransient(() =>
        db
          .transaction((trx) => evaluate(trx, { ...run, part: null }, deps))
          .catch((error: unknown) => {
            // what the failed run changed in the forecast memory was rolled back with it
            deps.forecastMemory?.forget();
            throw error;
          }),
      );
    } catch (error) {
      log.error({ err: error }, 'Evaluation run failed: evaluating customer by customer');
      committed = await runPerCustomer(run, error);
    }
    // the answer does not wait for the live updates: 20,000 events of a mass outage take ~2 s
    published = published.then(() => publish(committed));
    void notifier.deliver(committed.suppressed, mailOn);
    const { alerts, health } = committed.result;
    log.info(
      { ...alerts, markedOffline: health.marked_offline, failedCustomers: committed.result.failedCustomers.length },
      'Evaluation run',
    );
    return committed.result;
  }

  return {
    /** One run; concurrent calls in this process run one after the other. */
    run(): Promise<RunResult> {
      const next = queue.then(measuredRun, measuredRun);
      queue = next.catch(() => undefined);
      return next;
    },
    /** Waits for the runs, their bus events and e-mail passes started so far (shutdown, tests). */
    async settled(): Promise<void> {
      await queue;
      await published;
      await notifier.settled();
    },
  };
}

export type Evaluation = ReturnType<typeof createEvaluation>;
