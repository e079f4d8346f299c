/**
 * The checks' SQL. A check is a `checks` row keyed by the id of its own `systems` row (kind
 * 'check'; migration 0024): name, customer and cluster live there, so alerts, maintenance windows,
 * reports and status pages treat it as they treat a system. Each run is one `metrics` row and
 * updates `system_latest` (what the evaluation reads), the system's last-seen time and the check's
 * state and last result.
 */
import type { Knex } from 'knex';
import type { CheckResult } from '../../../contracts/checks.js';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';

export interface CheckRow {
  id: number;
  customerId: number;
  clusterId: number | null;
  name: string;
  type: 'http' | 'tcp' | 'dns' | 'ping';
  settings: Record<string, unknown>;
  sealedHeaders: string | null;
  intervalS: number;
  timeoutS: number;
  retries: number;
  retryIntervalS: number;
  maxResponseMs: number | null;
  locations: string[];
  quorum: number | null;
  enabled: boolean;
  state: 'PENDING' | 'UP' | 'DOWN' | 'DEGRADED' | 'PAUSED';
  stateSince: Date | null;
  failures: number;
  lastResult: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export type CheckFields = Omit<
  CheckRow,
  'id' | 'state' | 'stateSince' | 'failures' | 'lastResult' | 'createdAt' | 'updatedAt'
>;

/** What one location (the server, or an agent) sees of a check: `check_locations` (migration 0029). */
export interface LocationRow {
  checkId: number;
  location: string;
  state: 'PENDING' | 'UP' | 'DOWN' | 'DEGRADED';
  stateSince: Date | null;
  failures: number;
  lastResult: CheckResult | null;
  /** When its newest result was measured. */
  at: Date;
}

/** One run (or a heartbeat of the state) to store: its series and the check's state after it. */
export interface StoredRun {
  id: number;
  time: Date;
  names: string[];
  instances: string[];
  vals: number[];
  /** The check's state after it; a heartbeat keeps the last result (null). */
  state?: {
    state: CheckRow['state'];
    stateSince: Date | null;
    failures: number;
    lastResult: CheckResult | Record<string, unknown> | null;
  };
}

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
  'c.last_result',
  'c.created_at',
  'c.updated_at',
];

function mapRow(r: Record<string, unknown>): CheckRow {
  return {
    id: r['id'] as number,
    customerId: r['customer_id'] as number,
    clusterId: (r['cluster_id'] as number | null) ?? null,
    name: r['name'] as string,
    type: r['type'] as CheckRow['type'],
    settings: r['settings'] as Record<string, unknown>,
    sealedHeaders: (r['sealed_headers'] as string | null) ?? null,
    intervalS: r['interval_s'] as number,
    timeoutS: r['timeout_s'] as number,
    retries: r['retries'] as number,
    retryIntervalS: r['retry_interval_s'] as number,
    maxResponseMs: (r['max_response_ms'] as number | null) ?? null,
    locations: r['locations'] as string[],
    quorum: (r['quorum'] as number | null) ?? null,
    enabled: r['enabled'] as boolean,
    state: r['state'] as CheckRow['state'],
    stateSince: (r['state_since'] as Date | null) ?? null,
    failures: r['failures'] as number,
    lastResult: (r['last_result'] as Record<string, unknown> | null) ?? null,
    createdAt: r['created_at'] as Date,
    updatedAt: r['updated_at'] as Date,
  };
}

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

// one statement per batch of runs: the rows, the newest values, last seen and the checks' state
const STORE_RUNS = `
WITH runs AS MATERIALIZED (
  SELECT * FROM jsonb_to_recordset(?::jsonb)
    AS r(id int, time timestamptz, names text[], instances text[], vals float8[], state text,
         state_since timestamptz, failures int, last_result jsonb)
),
inserted AS (
  INSERT INTO metrics (time, system_id, set_id, vals)
  SELECT time, id, metric_series_set_id(names, instances), vals::real[] FROM runs
  ON CONFLICT (system_id, time) DO NOTHING
),
latest AS (
  INSERT INTO system_latest AS l (system_id, names, instances, times, vals)
  SELECT id, names, instances, array_fill(time, ARRAY[cardinality(names)]), vals FROM runs
  ON CONFLICT (system_id) DO UPDATE SET (names, instances, times, vals) = (
    SELECT m.names, m.instances, m.times, m.vals
    FROM system_latest_merge(l.names, l.instances, l.times, l.vals,
                             excluded.names, excluded.instances, excluded.times, excluded.vals) m)
),
seen AS (
  UPDATE systems s SET last_seen_at = GREATEST(s.last_seen_at, r.time),
         status = CASE WHEN s.status IN ('WARNING', 'CRITICAL') THEN s.status ELSE 'ONLINE' END
    FROM runs r WHERE s.id = r.id
)
UPDATE checks c SET state = r.state, state_since = r.state_since, failures = r.failures,
         last_result = COALESCE(r.last_result, c.last_result)
  FROM runs r WHERE c.id = r.id AND r.state IS NOT NULL`;

const mapLocation = (r: Record<string, unknown>): LocationRow => ({
  checkId: r['check_id'] as number,
  location: r['location'] as string,
  state: r['state'] as LocationRow['state'],
  stateSince: (r['state_since'] as Date | null) ?? null,
  failures: r['failures'] as number,
  lastResult: (r['last_result'] as CheckResult | null) ?? null,
  at: r['at'] as Date,
});

export function createChecksRepo(db: Knex) {
  /** Stores the runs; a check's second run of the batch goes into a statement of its own (an upsert touches a row once). */
  async function storeRuns(runs: StoredRun[], q: Knex = db): Promise<void> {
    const seen = new Set<number>();
    const now = runs.filter((r) => !seen.has(r.id) && seen.add(r.id));
    const later = runs.filter((r) => !now.includes(r));
    if (!now.length) return;
    const rows = now.map((r) => ({
      id: r.id,
      time: r.time.toISOString(),
      names: r.names,
      instances: r.instances,
      vals: r.vals,
      state: r.state?.state ?? null,
      state_since: r.state?.stateSince?.toISOString() ?? null,
      failures: r.state?.failures ?? null,
      last_result: r.state?.lastResult ?? null,
    }));
    await q.raw(STORE_RUNS, [JSON.stringify(rows)]);
    await storeRuns(later, q);
  }

  const base = (q: Knex) => q('checks as c').join('systems as s', 's.id', 'c.id').select(COLUMNS);
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
    async insert(trx: Knex, fields: CheckFields): Promise<number> {
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

    async update(trx: Knex, id: number, fields: Partial<CheckFields>): Promise<void> {
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

    async delete(trx: Knex, id: number): Promise<void> {
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

    /** The checks of `ids`, locked until the transaction ends (id order: two writers never wait on each other in a circle). */
    async lockForResults(trx: Knex, ids: number[]): Promise<CheckRow[]> {
      const rows = (await base(trx).whereIn('c.id', ids).orderBy('c.id').forUpdate('c')) as Record<string, unknown>[];
      return rows.map(mapRow);
    },

    async locationsOf(ids: number[], q: Knex = db): Promise<LocationRow[]> {
      if (!ids.length) return [];
      return ((await q('check_locations').whereIn('check_id', ids)) as Record<string, unknown>[]).map(mapLocation);
    },

    async saveLocations(trx: Knex, rows: LocationRow[]): Promise<void> {
      if (!rows.length) return;
      await trx('check_locations')
        .insert(
          rows.map((r) => ({
            check_id: r.checkId,
            location: r.location,
            state: r.state,
            state_since: r.stateSince,
            failures: r.failures,
            last_result: r.lastResult ? JSON.stringify(r.lastResult) : null,
            at: r.at,
          })),
        )
        .onConflict(['check_id', 'location'])
        .merge();
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

    storeRuns,
  };
}

export type ChecksRepo = ReturnType<typeof createChecksRepo>;
