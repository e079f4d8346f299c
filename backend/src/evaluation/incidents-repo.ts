/** SQL of cluster incidents (migration 0011), inside the evaluation run's transaction. */
import type { Knex } from 'knex';
import { customerBindings, ofCustomer, type FleetPart } from './repo.js';

export interface OfflineCandidate {
  alertId: number;
  systemId: number;
}

export interface IncidentChange {
  incidentId: number;
  /** The lead alert's customer (the fleet incident has none of its own). */
  customerId: number;
  /** The fleet incident: notified to the administrators only (global policy and channels, ADMIN accounts). */
  fleet: boolean;
  /** The first alert of the incident: its notifications are sent with it. */
  leadAlertId: number;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
}

type ChangeRow = { id: string; kind: string; customer_id: number; lead: string; severity: string };

/** The first alert of incident `alias` (a cluster incident's members, or the fleet incident's). */
const leadOf = (alias: string) => `JOIN LATERAL (
  (SELECT a.id, a.severity, a.customer_id FROM alerts a WHERE a.incident_id = ${alias}.id ORDER BY a.id LIMIT 1)
  UNION ALL
  (SELECT a.id, a.severity, a.customer_id FROM alerts a WHERE a.fleet_incident_id = ${alias}.id ORDER BY a.id LIMIT 1)
  LIMIT 1) lead ON true`;

function toChange(r: ChangeRow): IncidentChange {
  return {
    incidentId: Number(r.id),
    customerId: r.customer_id,
    fleet: r.kind === 'fleet',
    leadAlertId: Number(r.lead),
    severity: r.severity as IncidentChange['severity'],
  };
}

export function createRunIncidentsRepo(db: Knex) {
  return {
    /** Open offline alerts not yet in an incident, raised at or after `since` (this run or the one before). */
    async offlineCandidates(since: Date, part: FleetPart, trx: Knex = db): Promise<OfflineCandidate[]> {
      const rows = await trx('alerts')
        .where({ state: 'open', rule_kind: 'offline' })
        .whereRaw(ofCustomer('customer_id'), customerBindings(part))
        .whereNull('incident_id')
        .where('started_at', '>=', since)
        .select<{ id: string; system_id: number }[]>('id', 'system_id');
      return rows.map((r) => ({ alertId: Number(r.id), systemId: r.system_id }));
    },
    /** clusterId → the open incident's id. */
    async openIncidents(trx: Knex = db): Promise<Map<number, number>> {
      const rows = await trx('incidents')
        .where({ state: 'open', kind: 'cluster' })
        .select<{ id: string; cluster_id: number }[]>('id', 'cluster_id');
      return new Map(rows.map((r) => [r.cluster_id, Number(r.id)]));
    },
    /** The open fleet incident's id (null: none). */
    async openFleetIncident(trx: Knex = db): Promise<number | null> {
      const row = await trx('incidents')
        .where({ state: 'open', kind: 'fleet' })
        .first<{ id: string } | undefined>('id');
      return row ? Number(row.id) : null;
    },
    async createFleetIncident(systems: number, now: Date, trx: Knex = db): Promise<number> {
      const { rows } = await trx.raw<{ rows: { id: string }[] }>(
        `INSERT INTO incidents (kind, title, started_at) VALUES ('fleet', ?, ?) RETURNING id`,
        [`Argus receives no reports from ${systems} systems`, now],
      );
      return Number(rows[0]?.id);
    },
    /** One incident per cluster, in one statement: clusterId → the new incident's id. */
    async createIncidents(clusterIds: readonly number[], now: Date, trx: Knex = db): Promise<Map<number, number>> {
      if (!clusterIds.length) return new Map();
      const { rows } = await trx.raw<{ rows: { id: string; cluster_id: number }[] }>(
        `INSERT INTO incidents (customer_id, cluster_id, title, started_at)
         SELECT customer_id, id, 'Site down: ' || name, ? FROM clusters WHERE id = ANY(?::int[])
         RETURNING id, cluster_id`,
        [now, [...clusterIds]],
      );
      return new Map(rows.map((r) => [r.cluster_id, Number(r.id)]));
    },
    /** Alerts join incidents, in one statement: alertId → incidentId. */
    async attachAlerts(incidentOf: ReadonlyMap<number, number>, trx: Knex = db): Promise<void> {
      if (!incidentOf.size) return;
      await trx.raw(
        `UPDATE alerts a SET incident_id = m.incident_id
           FROM unnest(?::bigint[], ?::bigint[]) AS m(alert_id, incident_id)
          WHERE a.id = m.alert_id`,
        [[...incidentOf.keys()], [...incidentOf.values()]],
      );
    },
    /** The lead alert and severity of new incidents (for their `raised` notification). */
    async describeIncidents(incidentIds: readonly number[], trx: Knex = db): Promise<IncidentChange[]> {
      if (!incidentIds.length) return [];
      const { rows } = await trx.raw<{ rows: ChangeRow[] }>(
        `SELECT i.id, i.kind, lead.customer_id, lead.id AS lead, lead.severity
           FROM incidents i
           ${leadOf('i')}
          WHERE i.id = ANY(?::bigint[])`,
        [[...incidentIds]],
      );
      return rows.map(toChange);
    },
    /** Open incidents none of whose alerts is open any more: resolved now, returned for their notification. */
    async resolveReturnedIncidents(now: Date, trx: Knex = db): Promise<IncidentChange[]> {
      const { rows } = await trx.raw<{ rows: ChangeRow[] }>(
        `WITH done AS (
           UPDATE incidents i SET state = 'resolved', resolved_at = ?
            WHERE i.state = 'open'
              AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.incident_id = i.id AND a.state = 'open')
              AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.fleet_incident_id = i.id AND a.state = 'open')
           RETURNING i.id, i.kind)
         SELECT done.id, done.kind, lead.customer_id, lead.id AS lead, lead.severity
           FROM done
           ${leadOf('done')}`,
        [now],
      );
      return rows.map(toChange);
    },
    /** Of these alerts, those that belong to an incident (a cluster's or the fleet's). */
    async inIncident(alertIds: readonly number[], trx: Knex = db): Promise<Set<number>> {
      if (!alertIds.length) return new Set();
      const rows = await trx('alerts')
        .whereRaw('id = ANY(?::bigint[])', [[...alertIds]])
        .where((q) => q.whereNotNull('incident_id').orWhereNotNull('fleet_incident_id'))
        .select<{ id: string }[]>('id');
      return new Set(rows.map((r) => Number(r.id)));
    },
  };
}

export type RunIncidentsRepo = ReturnType<typeof createRunIncidentsRepo>;
