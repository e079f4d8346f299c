/**
 * The checks' SQL. A check is a `checks` row keyed by the id of its own `systems` row (kind
 * 'check'; migration 0024): name, customer and cluster live there, so alerts, maintenance windows,
 * reports and status pages treat it as they treat a system. Each run is one `metrics` row and
 * updates `system_latest` (what the evaluation reads), the system's last-seen time, its place's row
 * and, when it changed, the check's state (results-repo.ts); the check's last result is read from
 * its places' rows.
 */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';
import { mapLocation, mapRow, type CheckRow, type LocationRow } from './check-rows.js';
import { createResultsRepo } from './results-repo.js';

export type { CheckRow, LocationRow, StoredRun } from './check-rows.js';

export type CheckFields = Omit<
  CheckRow,
  'id' | 'state' | 'stateSince' | 'failures' | 'lastResult' | 'createdAt' | 'updatedAt'
>;

const COLUMNS = [
  'c.id',
  's.customer_id',
  's.cluster_id',
  's.name',
  'c.type',
  'c.settings',
  'c.sealed_headers',
  'c.interval_s',
  'c.timeout_s',
  'c.retries',
  'c.retry_interval_s',
  'c.max_response_ms',
  'c.locations',
  'c.quorum',
  'c.enabled',
  'c.state',
  'c.state_since',
  'c.failures',
  'c.created_at',
  'c.updated_at',
];

// the result measured last, wherever: each place's row has its own (the check's row is written
// only when its state changes); the check's own column for one from before the places had rows
const LAST_RESULT = `COALESCE((SELECT l.last_result FROM check_locations l WHERE l.check_id = c.id
  ORDER BY l.at DESC LIMIT 1), c.last_result) AS last_result`;

const checkColumns = (f: Partial<CheckFields>) => ({
  ...(f.type !== undefined ? { type: f.type } : {}),
  ...(f.settings !== undefined ? { settings: JSON.stringify(f.settings) } : {}),
  ...(f.sealedHeaders !== undefined ? { sealed_headers: f.sealedHeaders } : {}),
  ...(f.intervalS !== undefined ? { interval_s: f.intervalS } : {}),
  ...(f.timeoutS !== undefined ? { timeout_s: f.timeoutS } : {}),
  ...(f.retries !== undefined ? { retries: f.retries } : {}),
  ...(f.retryIntervalS !== undefined ? { retry_interval_s: f.retryIntervalS } : {}),
  ...(f.maxResponseMs !== undefined ? { max_response_ms: f.maxResponseMs } : {}),
  ...(f.locations !== undefined ? { locations: f.locations } : {}),
  ...(f.quorum !== undefined ? { quorum: f.quorum } : {}),
  ...(f.enabled !== undefined ? { enabled: f.enabled } : {}),
});

export function createChecksRepo(db: Knex) {
  const base = (q: Knex) =>
    q('checks as c')
      .join('systems as s', 's.id', 'c.id')
      .select([...COLUMNS, q.raw(LAST_RESULT)]);
  return {
    transaction: transactionOf(db),

    async list(visible: Visible, customerId: number | null): Promise<CheckRow[]> {
      const query = base(db).orderBy([{ column: 's.customer_id' }, { column: 's.name' }, { column: 'c.id' }]);
      if (visible !== null) query.whereIn('s.customer_id', [...visible]);
      if (customerId !== null) query.where('s.customer_id', customerId);
      return (await query).map(mapRow);
    },

    /** Per customer (of those visible), how many checks are in each state. */
    async countsByState(visible: Visible): Promise<{ customerId: number; state: CheckRow['state']; count: number }[]> {
      const query = db('checks as c')
        .join('systems as s', 's.id', 'c.id')
        .groupBy('s.customer_id', 'c.state')
        .orderBy('s.customer_id')
        .select('s.customer_id as customerId', 'c.state as state', db.raw('count(*)::int AS count'));
      if (visible !== null) query.whereIn('s.customer_id', [...visible]);
      return (await query) as { customerId: number; state: CheckRow['state']; count: number }[];
    },

    async find(id: number, q: Knex = db): Promise<CheckRow | null> {
      const row = (await base(q).where('c.id', id).first()) as Record<string, unknown> | undefined;
      return row ? mapRow(row) : null;
    },

    async clusterCustomer(clusterId: number): Promise<number | null> {
      const row = (await db('clusters').where({ id: clusterId }).first('customer_id')) as
        { customer_id: number } | undefined;
      return row?.customer_id ?? null;
    },

    /** The check's system row (kind 'check', no offline alerts: a check's silence is not an outage) and its row. */
    async insert(fields: CheckFields, trx: Knex = db): Promise<number> {
      const [system] = (await trx('systems')
        .insert({
          customer_id: fields.customerId,
          cluster_id: fields.clusterId,
          name: fields.name,
          kind: 'check',
          offline_alerts: false,
          status: fields.enabled ? 'PENDING' : 'STANDBY',
        })
        .returning('id')) as { id: number }[];
      const id = (system as { id: number }).id;
      await trx('checks').insert({ id, ...checkColumns(fields), state: fields.enabled ? 'PENDING' : 'PAUSED' });
      return id;
    },

    async update(id: number, fields: Partial<CheckFields>, trx: Knex = db): Promise<void> {
      const system = {
        ...(fields.name !== undefined ? { name: fields.name } : {}),
        ...(fields.clusterId !== undefined ? { cluster_id: fields.clusterId } : {}),
      };
      if (Object.keys(system).length)
        await trx('systems')
          .where({ id })
          .update({ ...system, updated_at: trx.fn.now() });
      await trx('checks')
        .where({ id })
        .update({ ...checkColumns(fields), updated_at: trx.fn.now() });
      // paused: no state and no alerts until it runs again; resumed: pending until its first run
      if (fields.enabled === false) {
        await trx('checks').where({ id }).update({ state: 'PAUSED', failures: 0, state_since: trx.fn.now() });
        await trx('systems').where({ id }).update({ status: 'STANDBY' });
      } else if (fields.enabled === true) {
        await trx('checks').where({ id }).whereIn('state', ['PAUSED']).update({ state: 'PENDING', state_since: null });
      }
    },

    async delete(id: number, trx: Knex = db): Promise<void> {
      await trx('metrics').where({ system_id: id }).delete();
      await trx('systems').where({ id, kind: 'check' }).delete();
    },

    /** The enabled checks: the server runs those with "argus" among their locations, and keeps every one's state fresh. */
    async runnable(): Promise<CheckRow[]> {
      return (await base(db).where('c.enabled', true)).map(mapRow);
    },

    /** The enabled checks run by some agent (a location other than the server). */
    async runByAgents(): Promise<CheckRow[]> {
      return (await base(db).where('c.enabled', true).whereRaw("c.locations <> '{argus}'")).map(mapRow);
    },

    async locationsOf(ids: number[], q: Knex = db): Promise<LocationRow[]> {
      if (!ids.length) return [];
      return ((await q('check_locations').whereIn('check_id', ids)) as Record<string, unknown>[]).map(mapLocation);
    },

    /** The ids among `ids` of agent systems (kind 'agent') of the customer. */
    async agentSystemsOf(customerId: number, ids: number[]): Promise<Set<number>> {
      if (!ids.length) return new Set();
      const rows = (await db('systems')
        .where({ customer_id: customerId, kind: 'agent' })
        .whereIn('id', ids)
        .select('id')) as { id: number }[];
      return new Set(rows.map((r) => r.id));
    },

    /** The names of systems by id (the locations of checks run by agents). */
    async systemNames(ids: number[]): Promise<Map<number, string>> {
      if (!ids.length) return new Map();
      const rows = (await db('systems').whereIn('id', ids).select('id', 'name')) as { id: number; name: string }[];
      return new Map(rows.map((r) => [r.id, r.name]));
    },

    ...createResultsRepo(db),
  };
}

export type ChecksRepo = ReturnType<typeof createChecksRepo>;
