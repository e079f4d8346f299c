/**
 * Cluster incidents (docs/rules.md "Incidents and mass outages"): when at least half of a cluster's reporting systems, and at
 * least 3, went offline in this run or the one before, one incident "Site down: <cluster>" groups
 * their offline alerts; further offline alerts of that cluster join it while it is open. The
 * incident is notified once (with its first alert) instead of once per system, and resolved, once,
 * when all of its alerts have resolved.
 *
 * The fleet incident: when a large share of the whole fleet goes silent in one run (fleetGoesDark),
 * one incident "Argus receives no reports from N systems" for the administrators groups this run's
 * offline alerts, beside their cluster incidents; further offline alerts join it while it is open.
 */
import type { Knex } from 'knex';
import type { IncidentChange } from './incidents-repo.js';
import type { Alert } from '../alerts/alert-json.js';
import type { FleetPart } from './repo.js';
import type { EvaluationRepos } from './repos.js';
import { identity, type NewAlert, type SystemInfo } from './types.js';

/** What the incident steps read and write: the incidents, and the alerts they raise. */
type IncidentRepos = Pick<EvaluationRepos, 'incidents' | 'run'>;

export const INCIDENT_MIN_SYSTEMS = 3;
/** The fleet incident: at least this many systems silent in one run… */
export const FLEET_MIN_SYSTEMS = 50;
/** …and more than half of those that reported within this long. */
export const FLEET_RECENT_MS = 10 * 60_000;

export interface IncidentPlan<K> {
  /** clusterId → candidates (alert ids, or the identities of alerts about to be raised) for a new incident */
  create: Map<number, K[]>;
  /** incidentId → candidates that join it */
  join: Map<number, K[]>;
}

/** Pure: which candidates form new incidents and which join open ones. */
export function planIncidents<K>(input: {
  candidates: readonly { alertId: K; systemId: number }[];
  systems: ReadonlyMap<number, Pick<SystemInfo, 'clusterId' | 'status'>>;
  open: ReadonlyMap<number, number>;
}): IncidentPlan<K> {
  const byCluster = new Map<number, K[]>();
  for (const candidate of input.candidates) {
    const clusterId = input.systems.get(candidate.systemId)?.clusterId;
    if (clusterId === null || clusterId === undefined) continue;
    const members = byCluster.get(clusterId);
    if (members) members.push(candidate.alertId);
    else byCluster.set(clusterId, [candidate.alertId]);
  }
  const reporting = new Map<number, number>();
  for (const system of input.systems.values()) {
    if (system.clusterId !== null && system.status !== 'PENDING')
      reporting.set(system.clusterId, (reporting.get(system.clusterId) ?? 0) + 1);
  }
  const plan: IncidentPlan<K> = { create: new Map(), join: new Map() };
  for (const [clusterId, alertIds] of byCluster) {
    const open = input.open.get(clusterId);
    if (open !== undefined) plan.join.set(open, alertIds);
    else if (alertIds.length >= INCIDENT_MIN_SYSTEMS && alertIds.length * 2 >= (reporting.get(clusterId) ?? 0))
      plan.create.set(clusterId, alertIds);
  }
  return plan;
}

/**
 * Pure: whether the systems going silent in one run are a large share of the whole fleet (more than
 * half of those that reported in the last FLEET_RECENT_MS, and at least FLEET_MIN_SYSTEMS): then it
 * is most likely Argus's own network or ingest path that failed.
 */
export function fleetGoesDark(silent: number, reportedRecently: number): boolean {
  return silent >= FLEET_MIN_SYSTEMS && silent * 2 > reportedRecently;
}

/** The incidents of the offline alerts this run raises, decided before they are inserted (so no second write). */
export interface RunIncidents {
  /** Identity of an offline alert about to be raised → its cluster incident. */
  clusterOf: Map<string, number>;
  /** Identity of an offline alert about to be raised → the fleet incident. */
  fleetOf: Map<string, number>;
  /** Incidents opened in this run (their `raised` notification goes with their first alert). */
  created: number[];
}

const EARLIER = 'alert:';

/**
 * Before this run's alerts are inserted: opens the cluster incidents (candidates: this run's offline
 * raises and the open offline alerts of the run before), attaches the earlier alerts, and opens or
 * joins the fleet incident (whole-fleet runs only: a part of the fleet cannot judge the whole).
 */
export async function prepareIncidents(
  repos: IncidentRepos,
  trx: Knex.Transaction,
  input: {
    now: Date;
    previousRun: Date | null;
    systems: ReadonlyMap<number, SystemInfo>;
    part: FleetPart;
    raising: readonly NewAlert[];
  },
): Promise<RunIncidents> {
  const offline = input.raising.filter((a) => a.ruleKind === 'offline');
  const earlier = await repos.incidents.offlineCandidates(input.previousRun ?? input.now, input.part, trx);
  const plan = planIncidents({
    candidates: [
      ...earlier.map((c) => ({ alertId: `${EARLIER}${c.alertId}`, systemId: c.systemId })),
      ...offline.map((a) => ({ alertId: identity(a.ruleKey, a.systemId, a.instance), systemId: a.systemId })),
    ],
    systems: input.systems,
    open: await repos.incidents.openIncidents(trx),
  });
  const created = await repos.incidents.createIncidents([...plan.create.keys()], input.now, trx);
  const clusterOf = new Map<string, number>();
  for (const [clusterId, keys] of plan.create) {
    const incidentId = created.get(clusterId);
    if (incidentId !== undefined) for (const key of keys) clusterOf.set(key, incidentId);
  }
  for (const [incidentId, keys] of plan.join) for (const key of keys) clusterOf.set(key, incidentId);
  const attach = new Map<number, number>();
  for (const [key, incidentId] of clusterOf) {
    if (!key.startsWith(EARLIER)) continue;
    attach.set(Number(key.slice(EARLIER.length)), incidentId);
    clusterOf.delete(key);
  }
  await repos.incidents.attachAlerts(attach, trx);
  const fleet = input.part === null ? await fleetIncident(repos, trx, input.now, input.systems, offline.length) : null;
  const fleetOf = new Map<string, number>();
  if (fleet) for (const a of offline) fleetOf.set(identity(a.ruleKey, a.systemId, a.instance), fleet.id);
  return { clusterOf, fleetOf, created: [...created.values(), ...(fleet?.created ? [fleet.id] : [])] };
}

/** The open fleet incident this run's offline alerts join: the one open, or a new one when the fleet went dark. */
async function fleetIncident(
  repos: IncidentRepos,
  trx: Knex.Transaction,
  now: Date,
  systems: ReadonlyMap<number, SystemInfo>,
  silent: number,
): Promise<{ id: number; created: boolean } | null> {
  if (!silent) return null;
  const open = await repos.incidents.openFleetIncident(trx);
  if (open !== null) return { id: open, created: false };
  const recent = now.getTime() - FLEET_RECENT_MS;
  let reportedRecently = 0;
  for (const system of systems.values())
    if (system.lastSeenAt && system.lastSeenAt.getTime() >= recent) reportedRecently++;
  if (!fleetGoesDark(silent, reportedRecently)) return null;
  return { id: await repos.incidents.createFleetIncident(silent, now, trx), created: true };
}

/** Inserts the run's alerts, each in its incidents; `grouped`: the ids of those in one (their own notifications are held). */
export async function raiseInIncidents(
  repos: IncidentRepos,
  trx: Knex.Transaction,
  toRaise: readonly NewAlert[],
  now: Date,
  incidents: RunIncidents,
): Promise<{ raised: Alert[]; grouped: Set<number> }> {
  const raised = await repos.run.insertAlerts(
    toRaise,
    now,
    (a) => {
      const key = identity(a.ruleKey, a.systemId, a.instance);
      return { cluster: incidents.clusterOf.get(key) ?? null, fleet: incidents.fleetOf.get(key) ?? null };
    },
    trx,
  );
  const grouped = new Set<number>();
  for (const row of raised) {
    const key = identity(row.ruleKey, row.systemId, row.instance);
    if (incidents.clusterOf.has(key) || incidents.fleetOf.has(key)) grouped.add(row.id);
  }
  return { raised, grouped };
}

export interface IncidentOutcome {
  opened: IncidentChange[];
  resolved: IncidentChange[];
}

/** After the run's alerts were raised and resolved: describes the new incidents, resolves those all back. */
export async function settleIncidents(
  repos: IncidentRepos,
  trx: Knex.Transaction,
  created: readonly number[],
  now: Date,
): Promise<IncidentOutcome> {
  return {
    opened: await repos.incidents.describeIncidents(created, trx),
    resolved: await repos.incidents.resolveReturnedIncidents(now, trx),
  };
}
