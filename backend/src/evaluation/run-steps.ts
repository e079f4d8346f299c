/**
 * One evaluation run, step by step, inside its transaction: `evaluate` reads as the list of steps
 * (docs/rules.md). Each step reads or writes through the injected repos and hands the next what it
 * found; the decisions themselves are pure (offline.ts, metric-rules.ts, event-rules.ts, forecasts.ts).
 */
import type { Knex } from 'knex';
import type { ForecastSettings } from '../../../contracts/settings.js';
import type { Alert } from '../alerts/alert-json.js';
import type { AlertNotifier } from '../notifications/service.js';
import { decideEvents, type EventDecision } from './event-rules.js';
import { flappingRaises, holdFlapping } from './flapping.js';
import type { ForecastMemory } from './forecast-memory.js';
import { forecastStep } from './forecast-step.js';
import type { ForecastDecision } from './forecasts.js';
import { prepareIncidents, raiseInIncidents, settleIncidents, type IncidentOutcome } from './incidents.js';
import { decideMetricRules, FRESH_MS, seriesKey, type MetricDecision } from './metric-rules.js';
import type { ObservationsRepo } from './observations-repo.js';
import { decideOffline, OFFLINE_AFTER_MS, type OfflineDecision } from './offline.js';
import type { FleetPart } from './repo.js';
import type { EvaluationRepos } from './repos.js';
import { RuleBook } from './rule-book.js';
import { withScriptCheckMessages } from './script-checks.js';
import { committedRun, incidentTransition, ownTransition, stillOpenAfter, type Committed } from './run-result.js';
import { DEFAULT_LOCK_TIMEOUT_MS, splitByKind, startRun } from './run-start.js';
import { buildSuppression, type Suppression } from './suppression.js';
import {
  identity,
  SEVERITY_RANK,
  type AgentEvent,
  type AlertRule,
  type EventRule,
  type LatestSample,
  type NewAlert,
  type OpenAlert,
  type PendingCondition,
  type Reboot,
  type SystemInfo,
  type SystemStatus,
} from './types.js';

/** Agent events are looked at for this long after they arrived (then forgotten by the seen-list). */
const EVENT_WINDOW_MS = 10 * 60_000;

/**
 * Run context: the mail switch, the forecast settings (both read before the transaction), and the
 * part of the fleet with its previous run (null: all, bookkeeping included).
 */
export interface RunContext {
  now: Date;
  mailOn: boolean;
  forecastSettings: ForecastSettings;
  part: { customerId: number; previousRun: Date | null } | null;
}

export interface RunDeps {
  repos: EvaluationRepos;
  notifier: AlertNotifier;
  /** How long a run waits for another process's run to finish (ms). */
  lockTimeoutMs?: number | undefined;
  forecastMemory: ForecastMemory | null;
}

/** What every step of one run shares. */
interface RunScope extends Pick<RunDeps, 'repos' | 'forecastMemory'>, Pick<RunContext, 'forecastSettings'> {
  trx: Knex.Transaction;
  now: Date;
  part: FleetPart;
}

interface Rules {
  alertRules: RuleBook<AlertRule>;
  eventRules: RuleBook<EventRule>;
  suppressed: Suppression;
  clusterIds: number[];
  timeZoneOf: (customerId: number) => string;
}

interface Fleet {
  /** Systems the offline detection moved (OFFLINE, STANDBY). */
  marked: { id: number; from: SystemStatus; to: SystemStatus }[];
  systems: Map<number, SystemInfo>;
  open: OpenAlert[];
  pending: Map<string, PendingCondition>;
}

interface Observed {
  candidates: LatestSample[];
  openSeries: Map<string, LatestSample>;
  reboots: Reboot[];
  agentEvents: AgentEvent[];
}

interface Decisions {
  offline: OfflineDecision;
  metric: MetricDecision;
  forecasts: ForecastDecision;
  events: EventDecision;
}

interface Raised {
  raised: Alert[];
  /** Raised into an incident: the incident is notified, not each alert. */
  grouped: Set<number>;
  /** Raised as flapping: notified as `flapping`. */
  flappingIds: Set<number>;
  /** Incidents opened by this run. */
  incidentsCreated: number[];
}

/** The run inside its transaction: the steps in the order they happen. */
export async function evaluate(trx: Knex.Transaction, run: RunContext, deps: RunDeps): Promise<Committed> {
  const { repos, forecastMemory } = deps;
  const { now, forecastSettings } = run;
  const scope: RunScope = { trx, repos, forecastMemory, forecastSettings, now, part: run.part?.customerId ?? null };
  const previousRun = await beginRun(scope, run.part, deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  const rules = await readRules(scope);
  const fleet = await detectOfflineAndReadFleet(scope);
  const observed = await readObservations(scope, rules, fleet);
  const decisions = await decide(scope, rules, fleet, observed);
  const raising = await raiseAlerts(scope, fleet, decisions, previousRun);
  const resolved = await resolveAlerts(scope, fleet, decisions);
  await settlePendingAndEvents(scope, decisions, observed.agentEvents);
  const stillOpen = stillOpenAfter(fleet.open, raising.raised, resolved);
  const statusChanges = await followWorstAlert(scope, fleet, stillOpen);
  const incidents = await settleRunIncidents(scope, raising.incidentsCreated, resolved);
  const expired = await queueNotifications(scope, deps.notifier, run.mailOn, {
    fleet,
    suppressed: rules.suppressed,
    raising,
    resolved,
    incidents,
  });
  return committedRun({
    now: run.now,
    systems: fleet.systems,
    clusterIds: rules.clusterIds,
    rulesOf: (system) => rules.alertRules.effectiveFor(system).length + rules.eventRules.effectiveFor(system).length,
    suppressed: rules.suppressed,
    marked: fleet.marked,
    raised: raising.raised,
    resolved,
    expired,
    stillOpen,
    statusChanges,
    incidents,
  });
}

/** The lock; a whole-fleet run also does the run's bookkeeping (a part takes the previous run from it). */
async function beginRun(scope: RunScope, part: RunContext['part'], lockTimeoutMs: number): Promise<Date | null> {
  if (!part) return startRun(scope.repos.run, scope.trx, scope.now, lockTimeoutMs);
  await scope.repos.run.lockRun(lockTimeoutMs, scope.trx);
  return part.previousRun;
}

async function readRules({ repos, trx, now }: RunScope): Promise<Rules> {
  const alertRules = new RuleBook(await repos.run.loadAlertRules(trx));
  const eventRules = new RuleBook(await repos.run.loadEventRules(trx));
  const customers = await repos.run.loadCustomers(trx);
  const suppressed = buildSuppression(customers, await repos.run.loadMaintenanceWindows(trx), now);
  const zones = new Map(customers.map((c) => [c.id, c.timeZone]));
  const timeZoneOf = (customerId: number) => zones.get(customerId) ?? 'UTC';
  return { alertRules, eventRules, suppressed, clusterIds: await repos.run.loadClusterIds(trx), timeZoneOf };
}

/** Offline detection first, before anything reads statuses; then the systems, open alerts and pending conditions. */
async function detectOfflineAndReadFleet({ repos, trx, now, part }: RunScope): Promise<Fleet> {
  const cutoff = new Date(now.getTime() - OFFLINE_AFTER_MS);
  const marked = await repos.observations.markSilentSystems(cutoff, now, part, trx);
  const systems = new Map<number, SystemInfo>((await repos.run.loadSystems(part, trx)).map((s) => [s.id, s]));
  const open = await repos.run.loadOpenAlerts(part, trx);
  const pending = new Map<string, PendingCondition>(
    (await repos.run.loadPending(trx))
      .filter((p) => part === null || systems.has(p.systemId))
      .map((p) => [identity(p.ruleKey, p.systemId, p.instance), p]),
  );
  return { marked, systems, open, pending };
}

/** What the rules read: one statement over the latest values for all systems, plus the open alerts' series. */
async function readObservations({ repos, trx, now, part }: RunScope, rules: Rules, fleet: Fleet): Promise<Observed> {
  const { systems } = fleet;
  const fresh = new Date(now.getTime() - FRESH_MS);
  const candidates = await repos.observations.firingCandidates(
    fresh,
    rules.alertRules.allEnabled(),
    systems.values(),
    trx,
  );
  const openSeries = await openAlertSeries(repos.observations, trx, rules, fleet);
  const reboots = await repos.observations.detectReboots(part, trx);
  const agentEvents = await repos.observations.unseenEvents(new Date(now.getTime() - EVENT_WINDOW_MS), part, trx);
  return { candidates, openSeries, reboots, agentEvents };
}

/** The newest values of the series the open metric alerts are about (they resolve on them). */
async function openAlertSeries(
  observations: ObservationsRepo,
  trx: Knex.Transaction,
  { alertRules }: Rules,
  { systems, open }: Fleet,
): Promise<Map<string, LatestSample>> {
  const keys = splitByKind(open).metric.flatMap((alert) => {
    const system = systems.get(alert.systemId);
    const metric = system ? alertRules.ruleFor(system, alert.ruleKey)?.metric : null;
    return metric ? [{ systemId: alert.systemId, name: metric, instance: alert.instance }] : [];
  });
  return new Map((await observations.latestOf(keys, trx)).map((s) => [seriesKey(s.systemId, s.name, s.instance), s]));
}

/** Each rule kind decides what to raise and resolve (pure, but for the forecast lines due and the script checks' texts). */
async function decide(scope: RunScope, rules: Rules, fleet: Fleet, observed: Observed): Promise<Decisions> {
  const { now } = scope;
  const { systems } = fleet;
  const { alertRules, suppressed } = rules;
  const open = splitByKind(fleet.open);
  const offline = decideOffline({ now, systems, rules: alertRules, open: open.offline, suppressed });
  const metric = decideMetricRules({
    now,
    systems,
    rules: alertRules,
    candidates: observed.candidates,
    pending: fleet.pending,
    open: open.metric,
    openSeries: observed.openSeries,
    suppressed,
  });
  await withScriptCheckMessages(scope.repos.observations, scope.trx, metric.raise, (alert) => {
    const system = systems.get(alert.systemId);
    return system ? alertRules.ruleFor(system, alert.ruleKey)?.metric : null;
  });
  const forecasts = await forecastStep(scope.repos, scope.trx, {
    now,
    systems,
    rules: alertRules,
    open: open.forecast,
    suppressed,
    settings: scope.forecastSettings,
    timeZoneOf: rules.timeZoneOf,
    part: scope.part,
    memory: scope.forecastMemory,
  });
  const events = decideEvents({
    now,
    systems,
    rules: rules.eventRules,
    events: observed.agentEvents,
    reboots: observed.reboots,
    open: open.event,
    suppressed,
  });
  return { offline, metric, forecasts, events };
}

/**
 * Inserts the raises, each in its cluster and fleet incidents (one notification for a site or a
 * fleet that went dark, not one per system), marks those that flap, and stores the event alerts' holds.
 */
async function raiseAlerts(
  scope: RunScope,
  fleet: Fleet,
  { offline, metric, forecasts, events }: Decisions,
  previousRun: Date | null,
): Promise<Raised> {
  const { repos, trx, now, part } = scope;
  const toRaise: NewAlert[] = [...offline.raise, ...metric.raise, ...forecasts.raise, ...events.raise];
  const flapping = new Set(
    [...(await flappingRaises(repos.flapping, trx, toRaise, now))].map((i) => {
      const a = toRaise[i] as NewAlert;
      return identity(a.ruleKey, a.systemId, a.instance);
    }),
  );
  const incidents = await prepareIncidents(repos, trx, {
    now,
    previousRun,
    systems: fleet.systems,
    part,
    raising: offline.raise,
  });
  const { raised, grouped } = await raiseInIncidents(repos, trx, toRaise, now, incidents);
  const flappingIds = new Set(
    raised.filter((alert) => flapping.has(identity(alert.ruleKey, alert.systemId, alert.instance))).map((a) => a.id),
  );
  await repos.flapping.markFlapping([...flappingIds], now, trx);
  await storeHolds(scope, raised, events);
  return { raised, grouped, flappingIds, incidentsCreated: incidents.created };
}

/** Event alerts stay open until their hold: the new ones' and the extended ones'. */
async function storeHolds({ repos, trx }: RunScope, raised: readonly Alert[], events: EventDecision): Promise<void> {
  const holdByIdentity = new Map(events.raise.map((a) => [identity(a.ruleKey, a.systemId, a.instance), a.holdUntil]));
  const holds = [
    ...raised.flatMap((alert) => {
      const holdUntil = holdByIdentity.get(identity(alert.ruleKey, alert.systemId, alert.instance));
      return holdUntil ? [{ alertId: alert.id, holdUntil }] : [];
    }),
    ...events.extend.map((e) => ({ alertId: e.alert.id, holdUntil: e.holdUntil })),
  ];
  await repos.run.setHolds(holds, trx);
}

/** Resolves what the rules cleared; a flapping alert stays open until clear for half the flapping window. */
async function resolveAlerts({ repos, trx, now }: RunScope, fleet: Fleet, decisions: Decisions): Promise<Alert[]> {
  const { offline, metric, forecasts, events } = decisions;
  const clearedIds = [
    ...new Set([...offline.resolve, ...metric.resolve, ...forecasts.resolve, ...events.resolve].map((r) => r.alert.id)),
  ];
  const resolveIds = await holdFlapping(repos.flapping, trx, fleet.open, clearedIds, now);
  return repos.run.resolveAlerts(resolveIds, now, trx);
}

/** Pending conditions started and ended; agent events looked at (forgotten past the event window). */
async function settlePendingAndEvents(
  { repos, trx, now }: RunScope,
  { metric }: Decisions,
  agentEvents: readonly AgentEvent[],
): Promise<void> {
  await repos.run.startPending(metric.startPending, trx);
  await repos.run.endPending(metric.endPending, trx);
  await repos.observations.markEventsSeen(agentEvents, new Date(now.getTime() - EVENT_WINDOW_MS - 5 * 60_000), trx);
}

/** A reporting system's status follows its worst open alert; the run's picture of the fleet follows too. */
async function followWorstAlert(
  { repos, trx, part }: RunScope,
  fleet: Fleet,
  stillOpen: readonly Alert[],
): Promise<{ id: number; status: SystemStatus }[]> {
  const worst = new Map<number, number>();
  for (const alert of stillOpen) {
    const rank = SEVERITY_RANK[alert.severity] ?? 0;
    if (rank > (worst.get(alert.systemId) ?? 0)) worst.set(alert.systemId, rank);
  }
  const warnings = [...worst].flatMap(([systemId, rank]) =>
    rank >= SEVERITY_RANK.WARNING
      ? [{ systemId, status: rank === 3 ? ('CRITICAL' as const) : ('WARNING' as const) }]
      : [],
  );
  const statusChanges = await repos.run.applyAlertStatuses(warnings, part, trx);
  for (const change of [...fleet.marked.map((m) => ({ id: m.id, status: m.to })), ...statusChanges]) {
    const system = fleet.systems.get(change.id);
    if (system) system.status = change.status;
  }
  return statusChanges;
}

/** Incidents opened are described, those whose systems are all back resolve. */
async function settleRunIncidents(
  { repos, trx, now }: RunScope,
  created: readonly number[],
  resolved: readonly Alert[],
): Promise<IncidentOutcome & { resolvedInIncident: Set<number> }> {
  const outcome = await settleIncidents(repos, trx, created, now);
  const resolvedIds = resolved.map((alert) => alert.id);
  return { ...outcome, resolvedInIncident: await repos.incidents.inIncident(resolvedIds, trx) };
}

/**
 * Queues the run's notifications with the reminders that are due; answers the acknowledgements that
 * expired. Raises are never suppressed (nothing was raised then); the rest may be.
 */
async function queueNotifications(
  { trx, now, part }: RunScope,
  notifier: AlertNotifier,
  mailOn: boolean,
  run: {
    fleet: Fleet;
    suppressed: Suppression;
    raising: Raised;
    resolved: readonly Alert[];
    incidents: Awaited<ReturnType<typeof settleRunIncidents>>;
  },
): Promise<Alert[]> {
  const { raising, incidents } = run;
  const quiet = (systemId: number) => {
    const system = run.fleet.systems.get(systemId);
    return system ? run.suppressed(system) : true;
  };
  const { expired, reminders } = await notifier.reminders(trx, now, quiet, part);
  const transitions = [
    ...raising.raised
      .filter((alert) => !raising.grouped.has(alert.id))
      .map((alert) => ownTransition(alert, raising.flappingIds.has(alert.id) ? 'flapping' : 'raised')),
    ...run.resolved
      .filter((alert) => !quiet(alert.systemId) && !incidents.resolvedInIncident.has(alert.id))
      .map((alert) => ownTransition(alert, 'resolved')),
    ...incidents.opened.map((change) => incidentTransition(change, 'raised')),
    ...incidents.resolved.map((change) => incidentTransition(change, 'resolved')),
    ...reminders,
  ];
  await notifier.queue(trx, transitions, now, mailOn);
  return expired;
}
