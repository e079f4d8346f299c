/** SQL of cluster incidents (migration 0011), inside the evaluation run's transaction. */
import type { Knex } from 'knex';
import { customerBindings, ofCustomer, type FleetPart } from './repo.js';

export interface OfflineCandidate {
  alertId: number;
  systemId: number;
}

export interface IncidentChange {
  incidentId: number;
  customerId: number;
  /** The first alert of the incident: its notifications are sent with it. */
  leadAlertId: number;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
}

/** Open offline alerts not yet in an incident, raised at or after `since` (this run or the one before). */
export async function offlineCandidates(trx: Knex, since: Date, part: FleetPart): Promise<OfflineCandidate[]> {
  const rows = await trx('alerts')
    .where({ state: 'open', rule_kind: 'offline' })
    .whereRaw(ofCustomer('customer_id'), customerBindings(part))
    .whereNull('incident_id')
    .where('started_at', '>=', since)
    .select<{ id: string; system_id: number }[]>('id', 'system_id');
  return rows.map((r) => ({ alertId: Number(r.id), systemId: r.system_id }));
}

/** clusterId → the open incident's id. */
export async function openIncidents(trx: Knex): Promise<Map<number, number>> {
  const rows = await trx('incidents')
    .where({ state: 'open' })
    .select<{ id: string; cluster_id: number }[]>('id', 'cluster_id');
  return new Map(rows.map((r) => [r.cluster_id, Number(r.id)]));
}

/** One incident per cluster, in one statement: clusterId → the new incident's id. */
export async function createIncidents(
  trx: Knex,
  clusterIds: readonly number[],
  now: Date,
): Promise<Map<number, number>> {
  if (!clusterIds.length) return new Map();
  const { rows } = await trx.raw<{ rows: { id: string; cluster_id: number }[] }>(
    `INSERT INTO incidents (customer_id, cluster_id, title, started_at)
     SELECT customer_id, id, 'Site down: ' || name, ? FROM clusters WHERE id = ANY(?::int[])
     RETURNING id, cluster_id`,
    [now, [...clusterIds]],
  );
  return new Map(rows.map((r) => [r.cluster_id, Number(r.id)]));
}

/** Alerts join incidents, in one statement: alertId → incidentId. */
export async function attachAlerts(trx: Knex, incidentOf: ReadonlyMap<number, number>): Promise<void> {
  if (!incidentOf.size) return;
  await trx.raw(
    `UPDATE alerts a SET incident_id = m.incident_id
       FROM unnest(?::bigint[], ?::bigint[]) AS m(alert_id, incident_id)
      WHERE a.id = m.alert_id`,
    [[...incidentOf.keys()], [...incidentOf.values()]],
  );
}

/** The lead alert and severity of new incidents (for their `raised` notification). */
export async function describeIncidents(trx: Knex, incidentIds: readonly number[]): Promise<IncidentChange[]> {
  if (!incidentIds.length) return [];
  const { rows } = await trx.raw<{ rows: { id: string; customer_id: number; lead: string; severity: string }[] }>(
    `SELECT i.id, i.customer_id, lead.id AS lead, lead.severity
       FROM incidents i
       JOIN LATERAL (SELECT a.id, a.severity FROM alerts a WHERE a.incident_id = i.id ORDER BY a.id LIMIT 1) lead ON true
      WHERE i.id = ANY(?::bigint[])`,
    [[...incidentIds]],
  );
  return rows.map(toChange);
}

/** Open incidents none of whose alerts is open any more: resolved now, returned for their notification. */
export async function resolveReturnedIncidents(trx: Knex, now: Date): Promise<IncidentChange[]> {
  const { rows } = await trx.raw<{ rows: { id: string; customer_id: number; lead: string; severity: string }[] }>(
    `WITH done AS (
       UPDATE incidents i SET state = 'resolved', resolved_at = ?
        WHERE i.state = 'open'
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.incident_id = i.id AND a.state = 'open')
       RETURNING i.id, i.customer_id)
     SELECT done.id, done.customer_id, lead.id AS lead, lead.severity
       FROM done
       JOIN LATERAL (SELECT a.id, a.severity FROM alerts a WHERE a.incident_id = done.id ORDER BY a.id LIMIT 1) lead ON true`,
    [now],
  );
  return rows.map(toChange);
}

function toChange(r: { id: string; customer_id: number; lead: string; severity: string }): IncidentChange {
  return {
    incidentId: Number(r.id),
    customerId: r.customer_id,
    leadAlertId: Number(r.lead),
    severity: r.severity as IncidentChange['severity'],
  };
}

/** Of these alerts, those that belong to an incident. */
export async function inIncident(trx: Knex, alertIds: readonly number[]): Promise<Set<number>> {
  if (!alertIds.length) return new Set();
  const rows = await trx('alerts')
    .whereRaw('id = ANY(?::bigint[])', [[...alertIds]])
    .whereNotNull('incident_id')
    .select<{ id: string }[]>('id');
  return new Set(rows.map((r) => Number(r.id)));
}
