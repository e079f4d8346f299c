/** What a run answers and what it hands over after its commit; the parts of a run evaluated customer by customer, merged. */
import type { Alert, AlertTransition } from '../alerts/alert-json.js';
import type { QueuedTransition } from '../notifications/repo.js';
import type { IncidentOutcome } from './incidents.js';
import type { IncidentChange } from './incidents-repo.js';
import type { Suppression } from './suppression.js';
import { REPORTING, type SystemInfo, type SystemStatus } from './types.js';

export interface ClusterCounts {
  systems: number;
  online: number;
  offline: number;
  openAlerts: number;
}

export interface RunResult {
  timestamp: string;
  alerts: { evaluated: number; triggered: number; resolved: number };
  health: { marked_offline: number };
  clusters: Record<string, ClusterCounts>;
  /** Customers whose part of the run failed (the run went on customer by customer); empty when all were evaluated. */
  failedCustomers: number[];
}

export interface Committed {
  result: RunResult;
  transitions: { type: AlertTransition; alert: Alert }[];
  statusChanged: number[];
  suppressed: Suppression;
  /** Customers whose incidents opened or resolved (the consoles' incident lists). */
  incidentCustomers: number[];
}

export /** One result of the parts of a run evaluated customer by customer (each part counts only its own systems). */
function mergeParts(parts: readonly Committed[], failedCustomers: number[], now: Date): Committed {
  const clusters: Record<string, ClusterCounts> = {};
  for (const part of parts) {
    for (const [id, counts] of Object.entries(part.result.clusters)) {
      const sum = (clusters[id] ??= { systems: 0, online: 0, offline: 0, openAlerts: 0 });
      sum.systems += counts.systems;
      sum.online += counts.online;
      sum.offline += counts.offline;
      sum.openAlerts += counts.openAlerts;
    }
  }
  const total = (pick: (r: RunResult) => number) => parts.reduce((n, p) => n + pick(p.result), 0);
  return {
    result: {
      timestamp: now.toISOString(),
      alerts: {
        evaluated: total((r) => r.alerts.evaluated),
        triggered: total((r) => r.alerts.triggered),
        resolved: total((r) => r.alerts.resolved),
      },
      health: { marked_offline: total((r) => r.health.marked_offline) },
      clusters,
      failedCustomers,
    },
    transitions: parts.flatMap((p) => p.transitions),
    statusChanged: parts.flatMap((p) => p.statusChanged),
    suppressed: parts[0]?.suppressed ?? (() => true),
    incidentCustomers: [...new Set(parts.flatMap((p) => p.incidentCustomers))],
  };
}

/** How many rules the run evaluated (on systems that have reported) and each cluster's counts. */
export function runFigures(input: {
  systems: ReadonlyMap<number, SystemInfo>;
  clusterIds: readonly number[];
  stillOpen: readonly Alert[];
  rulesOf: (system: SystemInfo) => number;
}): { evaluated: number; clusters: Record<string, ClusterCounts> } {
  const { systems } = input;
  let evaluated = 0;
  const clusters: Record<string, ClusterCounts> = {};
  for (const id of input.clusterIds) clusters[String(id)] = { systems: 0, online: 0, offline: 0, openAlerts: 0 };
  for (const system of systems.values()) {
    if (system.status !== 'PENDING') evaluated += input.rulesOf(system);
    const counts = system.clusterId === null ? undefined : clusters[String(system.clusterId)];
    if (!counts) continue;
    counts.systems += 1;
    if ((REPORTING as readonly SystemStatus[]).includes(system.status)) counts.online += 1;
    else if (system.status === 'OFFLINE' || system.status === 'STANDBY') counts.offline += 1;
  }
  for (const alert of input.stillOpen) {
    const clusterId = systems.get(alert.systemId)?.clusterId;
    const counts = clusterId === null || clusterId === undefined ? undefined : clusters[String(clusterId)];
    if (counts) counts.openAlerts += 1;
  }
  return { evaluated, clusters };
}

/** What one run answers (its figures) and hands over to be published after its commit. */
export function committedRun(run: {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  clusterIds: readonly number[];
  rulesOf: (system: SystemInfo) => number;
  suppressed: Suppression;
  /** Systems the offline detection moved. */
  marked: readonly { id: number; from: SystemStatus }[];
  raised: readonly Alert[];
  resolved: readonly Alert[];
  /** Acknowledgements that ran out. */
  expired: readonly Alert[];
  stillOpen: readonly Alert[];
  statusChanges: readonly { id: number }[];
  incidents: IncidentOutcome;
}): Committed {
  const { raised, resolved, marked, incidents } = run;
  const { evaluated, clusters } = runFigures(run);
  return {
    result: {
      timestamp: run.now.toISOString(),
      alerts: { evaluated, triggered: raised.length, resolved: resolved.length },
      health: { marked_offline: marked.filter((m) => (REPORTING as readonly string[]).includes(m.from)).length },
      clusters,
      failedCustomers: [],
    },
    transitions: [
      ...raised.map((alert) => ({ type: 'raised' as const, alert })),
      ...resolved.map((alert) => ({ type: 'resolved' as const, alert })),
      ...run.expired.map((alert) => ({ type: 'unacknowledged' as const, alert })),
    ],
    statusChanged: [...new Set([...marked.map((m) => m.id), ...run.statusChanges.map((c) => c.id)])],
    suppressed: run.suppressed,
    incidentCustomers: [
      ...new Set([...incidents.opened, ...incidents.resolved].filter((c) => !c.fleet).map((c) => c.customerId)),
    ],
  };
}

/** The alerts open after the run: those open before and not resolved, and those raised. */
export function stillOpenAfter(open: readonly Alert[], raised: readonly Alert[], resolved: readonly Alert[]): Alert[] {
  const resolvedIds = new Set(resolved.map((r) => r.id));
  return [...open.filter((a) => !resolvedIds.has(a.id)), ...raised];
}

/** An alert's own notification of a transition. */
export const ownTransition = (alert: Alert, kind: 'raised' | 'resolved' | 'flapping'): QueuedTransition => ({
  alertId: alert.id,
  kind,
  customerId: alert.customerId,
  severity: alert.severity,
});

/** An incident's notification, sent for its lead alert. */
export const incidentTransition = (change: IncidentChange, kind: 'raised' | 'resolved'): QueuedTransition => ({
  alertId: change.leadAlertId,
  kind,
  customerId: change.customerId,
  severity: change.severity,
  incidentId: change.incidentId,
  adminsOnly: change.fleet,
});
