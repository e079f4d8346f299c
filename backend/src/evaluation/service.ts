/**
 * The evaluation run (spec: `POST /api/cron/evaluate-alerts`, called once a
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
import { publishAlertTransition, toAlertJson, type AlertRow } from '../alerts/alert-json.js';
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { NO_EVALUATION_METRICS, type EvaluationMetrics } from '../lib/self-metrics.js';
import { retryTransient } from '../lib/transient.js';
import type { Mailer } from '../mail/mailer.js';
import type { QueuedTransition } from '../notifications/repo.js';
import type { AlertNotifier } from '../notifications/service.js';
import { decideEvents } from './event-rules.js';
import { flappingRaises, holdFlapping, markFlapping } from './flapping.js';
import { createForecastLineCache, forecastStep, type ForecastLineCache } from './forecast-step.js';
import { prepareIncidents, raiseInIncidents, settleIncidents } from './incidents.js';
import { inIncident, type IncidentChange } from './incidents-repo.js';
import { decideMetricRules, FRESH_MS, seriesKey } from './metric-rules.js';
import { decideOffline, OFFLINE_AFTER_MS } from './offline.js';
import * as observations from './observations-repo.js';
import * as repo from './repo.js';
import { DEFAULT_LOCK_TIMEOUT_MS, splitByKind, startRun } from './run-start.js';
import { RuleBook } from './rule-book.js';
import { withScriptCheckMessages } from './script-checks.js';
import { mergeParts, runFigures, type Committed, type RunResult } from './run-result.js';
import { buildSuppression, type Suppression } from './suppression.js';
import { identity, REPORTING, SEVERITY_RANK, type NewAlert, type PendingCondition, type SystemInfo } from './types.js';

/** Agent events are looked at for this long after they arrived (then forgotten by the seen-list). */
const EVENT_WINDOW_MS = 10 * 60_000;

export interface EvaluationDeps {
  db: Knex;
  bus: Bus;
  clock: Clock;
  log: Logger;
  mailer: Pick<Mailer, 'isEnabled'>;
  notifier: AlertNotifier;
  /** How long a run waits for another process's run to finish (ms). */
  lockTimeoutMs?: number;
  /** Argus's own metrics: run durations and outcomes, alerts raised and resolved. */
  metrics?: EvaluationMetrics;
  /** false: read the forecast lines that may fire from the table at every run (the bench's "before"). */
  keepForecastLines?: boolean;
}

/** What every run of one evaluation shares. */
type RunDeps = EvaluationDeps & { forecastLines: ForecastLineCache | null };

/** Run context: the mail switch, and the part of the fleet with its previous run (null: all, bookkeeping included). */
interface RunContext {
  now: Date;
  mailOn: boolean;
  part: { customerId: number; previousRun: Date | null } | null;
}

async function evaluate(trx: Knex.Transaction, run: RunContext, deps: RunDeps): Promise<Committed> {
  const { now, mailOn } = run;
  const t = now.getTime();
  const part = run.part?.customerId ?? null;
  let previousRun: Date | null;
  if (run.part) {
    await repo.lockRun(trx, deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
    previousRun = run.part.previousRun;
  } else previousRun = await startRun(trx, now, deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);

  const alertRules = new RuleBook(await repo.loadAlertRules(trx));
  const eventRules = new RuleBook(await repo.loadEventRules(trx));
  const suppressed = buildSuppression(await repo.loadCustomers(trx), await repo.loadMaintenanceWindows(trx), now);
  const clusterIds = await repo.loadClusterIds(trx);

  // 1. offline detection, before anything reads statuses
  const marked = await observations.markSilentSystems(trx, new Date(t - OFFLINE_AFTER_MS), now, part);
  const systems = new Map<number, SystemInfo>((await repo.loadSystems(trx, part)).map((s) => [s.id, s]));
  const open = await repo.loadOpenAlerts(trx, part);
  const openByKind = splitByKind(open);
  const pending = new Map<string, PendingCondition>(
    (await repo.loadPending(trx))
      .filter((p) => part === null || systems.has(p.systemId))
      .map((p) => [identity(p.ruleKey, p.systemId, p.instance), p]),
  );

  // 2. what the rules read: one statement over metric_latest for all systems, plus the open alerts' series
  const candidates = await observations.firingCandidates(
    trx,
    new Date(t - FRESH_MS),
    alertRules.allEnabled(),
    systems.values(),
  );
  const openSeriesKeys = openByKind.metric.flatMap((alert) => {
    const system = systems.get(alert.system_id);
    const metric = system ? alertRules.ruleFor(system, alert.rule_key)?.metric : null;
    return metric ? [{ systemId: alert.system_id, name: metric, instance: alert.instance }] : [];
  });
  const openSeries = new Map(
    (await observations.latestOf(trx, openSeriesKeys)).map((s) => [seriesKey(s.systemId, s.name, s.instance), s]),
  );
  const reboots = await observations.detectReboots(trx, part);
  const agentEvents = await observations.unseenEvents(trx, new Date(t - EVENT_WINDOW_MS), part);

  // 3. decisions (pure)
  const offline = decideOffline({ now, systems, rules: alertRules, open: openByKind.offline, suppressed });
  const metric = decideMetricRules({
    now,
    systems,
    rules: alertRules,
    candidates,
    pending,
    open: openByKind.metric,
    openSeries,
    suppressed,
  });
  await withScriptCheckMessages(trx, metric.raise, (alert) => {
    const system = systems.get(alert.systemId);
    return system ? alertRules.ruleFor(system, alert.ruleKey)?.metric : null;
  });
  const forecasts = await forecastStep(trx, {
    now,
    systems,
    rules: alertRules,
    open: openByKind.forecast,
    suppressed,
    part,
    cache: deps.forecastLines,
  });
  const events = decideEvents({
    now,
    systems,
    rules: eventRules,
    events: agentEvents,
    reboots,
    open: openByKind.event,
    suppressed,
  });

  // 4. writes
  const toRaise: NewAlert[] = [...offline.raise, ...metric.raise, ...forecasts.raise, ...events.raise];
  const flapping = new Set(
    [...(await flappingRaises(trx, toRaise, now))].map((i) => {
      const a = toRaise[i] as NewAlert;
      return identity(a.ruleKey, a.systemId, a.instance);
    }),
  );
  // cluster and fleet incidents: one notification for a site (or a fleet) that went dark, not one per system
  const incidents = await prepareIncidents(trx, { now, previousRun, systems, part, raising: offline.raise });
  const { raised, grouped } = await raiseInIncidents(trx, toRaise, now, incidents);
  const flappingIds = new Set(
    raised
      .filter((row) => flapping.has(identity(row.rule_key, row.system_id, row.instance)))
      .map((row) => Number(row.id)),
  );
  await markFlapping(trx, [...flappingIds], now);
  const holdByIdentity = new Map(events.raise.map((a) => [identity(a.ruleKey, a.systemId, a.instance), a.holdUntil]));
  await repo.setHolds(trx, [
    ...raised.flatMap((row) => {
      const holdUntil = holdByIdentity.get(identity(row.rule_key, row.system_id, row.instance));
      return holdUntil ? [{ alertId: Number(row.id), holdUntil }] : [];
    }),
    ...events.extend.map((e) => ({ alertId: Number(e.alert.id), holdUntil: e.holdUntil })),
  ]);
  // a flapping alert stays open until its condition has been clear for half the flapping window
  const resolveIds = await holdFlapping(
    trx,
    open,
    [
      ...new Set(
        [...offline.resolve, ...metric.resolve, ...forecasts.resolve, ...events.resolve].map((r) => Number(r.alert.id)),
      ),
    ],
    now,
  );
  const resolved = await repo.resolveAlerts(trx, resolveIds, now);
  await repo.startPending(trx, metric.startPending);
  await repo.endPending(trx, metric.endPending);
  await observations.markEventsSeen(trx, agentEvents, new Date(t - EVENT_WINDOW_MS - 5 * 60_000));

  // 5. status follows the worst open alert
  const resolvedIds = new Set(resolved.map((r) => Number(r.id)));
  const stillOpen = [...open.filter((a) => !resolvedIds.has(Number(a.id))), ...raised];
  const worst = new Map<number, number>();
  for (const alert of stillOpen) {
    const rank = SEVERITY_RANK[alert.severity as keyof typeof SEVERITY_RANK] ?? 0;
    if (rank > (worst.get(alert.system_id) ?? 0)) worst.set(alert.system_id, rank);
  }
  const statusChanges = await repo.applyAlertStatuses(
    trx,
    [...worst].flatMap(([systemId, rank]) =>
      rank >= SEVERITY_RANK.WARNING
        ? [{ systemId, status: rank === 3 ? ('CRITICAL' as const) : ('WARNING' as const) }]
        : [],
    ),
    part,
  );
  for (const change of [...marked.map((m) => ({ id: m.id, status: m.to })), ...statusChanges]) {
    const system = systems.get(change.id);
    if (system) system.status = change.status;
  }

  // 6. incidents opened are described, those whose systems are all back resolve
  const incidentChanges = await settleIncidents(trx, incidents.created, now);
  const resolvedInIncident = await inIncident(
    trx,
    resolved.map((row) => Number(row.id)),
  );

  // 7. notifications: raises are never suppressed (nothing was raised then); the rest may be
  const quiet = (systemId: number) => {
    const system = systems.get(systemId);
    return system ? suppressed(system) : true;
  };
  const { expired, reminders } = await deps.notifier.reminders(trx, now, quiet, part);
  const own = (row: AlertRow, kind: 'raised' | 'resolved' | 'flapping'): QueuedTransition => ({
    alertId: Number(row.id),
    kind,
    customerId: row.customer_id,
    severity: row.severity as QueuedTransition['severity'],
  });
  const ofIncident = (change: IncidentChange, kind: 'raised' | 'resolved'): QueuedTransition => ({
    alertId: change.leadAlertId,
    kind,
    customerId: change.customerId,
    severity: change.severity,
    incidentId: change.incidentId,
    adminsOnly: change.fleet,
  });
  await deps.notifier.queue(
    trx,
    [
      ...raised
        .filter((row) => !grouped.has(Number(row.id)))
        .map((row) => own(row, flappingIds.has(Number(row.id)) ? 'flapping' : 'raised')),
      ...resolved
        .filter((row) => !quiet(row.system_id) && !resolvedInIncident.has(Number(row.id)))
        .map((row) => own(row, 'resolved')),
      ...incidentChanges.opened.map((change) => ofIncident(change, 'raised')),
      ...incidentChanges.resolved.map((change) => ofIncident(change, 'resolved')),
      ...reminders,
    ],
    now,
    mailOn,
  );

  // 8. figures
  const { evaluated, clusters } = runFigures({
    systems,
    clusterIds,
    stillOpen,
    rulesOf: (system) => alertRules.effectiveFor(system).length + eventRules.effectiveFor(system).length,
  });

  return {
    result: {
      timestamp: now.toISOString(),
      alerts: { evaluated, triggered: raised.length, resolved: resolved.length },
      health: { marked_offline: marked.filter((m) => (REPORTING as readonly string[]).includes(m.from)).length },
      clusters,
      failedCustomers: [],
    },
    transitions: [
      ...raised.map((row) => ({ type: 'raised' as const, row })),
      ...resolved.map((row) => ({ type: 'resolved' as const, row })),
      ...expired.map((row) => ({ type: 'unacknowledged' as const, row })),
    ],
    statusChanged: [...new Set([...marked.map((m) => m.id), ...statusChanges.map((c) => c.id)])],
    suppressed,
    incidentCustomers: [
      ...new Set(
        [...incidentChanges.opened, ...incidentChanges.resolved].filter((c) => !c.fleet).map((c) => c.customerId),
      ),
    ],
  };
}

/** Suppression as the next run would see it now (sends outside a run, e.g. after an acknowledgement). */
export async function currentSuppression(db: Knex, now: Date): Promise<Suppression> {
  return buildSuppression(await repo.loadCustomers(db), await repo.loadMaintenanceWindows(db), now);
}

export function createEvaluation(evaluationDeps: EvaluationDeps) {
  const deps: RunDeps = {
    ...evaluationDeps,
    forecastLines: evaluationDeps.keepForecastLines === false ? null : createForecastLineCache(),
  };
  const { db, bus, clock, log, mailer, notifier } = deps;
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
    await repo.saveRunOutcome(db, { at: clock.now(), ...outcome }).catch((error: unknown) => {
      log.warn({ err: error }, 'Could not record the evaluation run outcome');
    });
  }

  /**
   * After a failed run: the bookkeeping once, then each customer in its own transaction, so one
   * customer's failing work (a statement that fails on its data) does not stop the rest of the fleet.
   * Throws when no customer could be evaluated.
   */
  async function runPerCustomer(now: Date, mailOn: boolean, failure: unknown): Promise<Committed> {
    const previousRun = await db.transaction((trx) =>
      startRun(trx, now, deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS),
    );
    const customers = (await repo.loadCustomers(db)).map((c) => c.id);
    const parts: Committed[] = [];
    const failed: number[] = [];
    for (const customerId of customers) {
      try {
        const part = { customerId, previousRun };
        parts.push(await retryTransient(() => db.transaction((trx) => evaluate(trx, { now, mailOn, part }, deps))));
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
    await Promise.all(
      committed.transitions.map(({ type, row }) => publishAlertTransition(bus, type, toAlertJson(row))),
    );
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
    // a report committing just as its system is marked offline can deadlock with the run: run it again
    let committed: Committed;
    try {
      committed = await retryTransient(() => db.transaction((trx) => evaluate(trx, { now, mailOn, part: null }, deps)));
    } catch (error) {
      log.error({ err: error }, 'Evaluation run failed: evaluating customer by customer');
      committed = await runPerCustomer(now, mailOn, error);
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
