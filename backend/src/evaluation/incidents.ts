/**
 * Cluster incidents (issue 13 item 6): when at least half of a cluster's reporting systems, and at
 * least 3, went offline in this run or the one before, one incident "Site down: <cluster>" groups
 * their offline alerts; further offline alerts of that cluster join it while it is open. The
 * incident is notified once (with its first alert) instead of once per system, and resolved, once,
 * when all of its alerts have resolved.
 */
import type { Knex } from 'knex';
import * as repo from './incidents-repo.js';
import type { FleetPart } from './repo.js';
import type { SystemInfo } from './types.js';

export const INCIDENT_MIN_SYSTEMS = 3;

export interface IncidentPlan {
  /** clusterId → candidate alert ids for a new incident */
  create: Map<number, number[]>;
  /** incidentId → alert ids that join it */
  join: Map<number, number[]>;
}

/** Pure: which candidates form new incidents and which join open ones. */
export function planIncidents(input: {
  candidates: readonly repo.OfflineCandidate[];
  systems: ReadonlyMap<number, Pick<SystemInfo, 'clusterId' | 'status'>>;
  open: ReadonlyMap<number, number>;
}): IncidentPlan {
  const byCluster = new Map<number, number[]>();
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
  const plan: IncidentPlan = { create: new Map(), join: new Map() };
  for (const [clusterId, alertIds] of byCluster) {
    const open = input.open.get(clusterId);
    if (open !== undefined) plan.join.set(open, alertIds);
    else if (alertIds.length >= INCIDENT_MIN_SYSTEMS && alertIds.length * 2 >= (reporting.get(clusterId) ?? 0))
      plan.create.set(clusterId, alertIds);
  }
  return plan;
}

export interface IncidentOutcome {
  /** Alerts now in an incident: their own notifications are not sent. */
  grouped: Set<number>;
  opened: repo.IncidentChange[];
  resolved: repo.IncidentChange[];
}

/** Runs after the run's alerts were raised and resolved, inside its transaction. */
export async function applyIncidents(
  trx: Knex.Transaction,
  input: { now: Date; previousRun: Date | null; systems: ReadonlyMap<number, SystemInfo>; part: FleetPart },
): Promise<IncidentOutcome> {
  const since = input.previousRun ?? input.now;
  const plan = planIncidents({
    candidates: await repo.offlineCandidates(trx, since, input.part),
    systems: input.systems,
    open: await repo.openIncidents(trx),
  });
  const created = await repo.createIncidents(trx, [...plan.create.keys()], input.now);
  const incidentOf = new Map<number, number>();
  for (const [clusterId, alertIds] of plan.create) {
    const incidentId = created.get(clusterId);
    if (incidentId !== undefined) for (const id of alertIds) incidentOf.set(id, incidentId);
  }
  for (const [incidentId, alertIds] of plan.join) for (const id of alertIds) incidentOf.set(id, incidentId);
  await repo.attachAlerts(trx, incidentOf);
  return {
    grouped: new Set(incidentOf.keys()),
    opened: await repo.describeIncidents(trx, [...created.values()]),
    resolved: await repo.resolveReturnedIncidents(trx, input.now),
  };
}
