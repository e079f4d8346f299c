/** SQL of the agent webhook: finding and enrolling systems, binding agent keys, and the group-commit statement. */
import type { Knex } from 'knex';
import { preparedQuery } from '../lib/prepared-transaction.js';
import { coalescedLoads } from '../lib/coalesced-loads.js';
import { boolArray, float8ArrayBinary, numberArray, numbered, textArray } from './pg.js';
import type { SeriesSet } from './series-sets.js';

export type SystemStatus = 'PENDING' | 'ONLINE' | 'WARNING' | 'CRITICAL' | 'OFFLINE' | 'STANDBY';

export interface AgentSystemRow {
  id: number;
  customerId: number;
  clusterId: number | null;
  agentKeyHash: string | null;
  status: SystemStatus;
  agentVersion: string | null;
  arch: string | null;
}

export interface EnrollmentCluster {
  id: number;
  customerId: number;
  enrollmentKey: string;
}

export type Registration =
  | { kind: 'created' | 'exists'; system: AgentSystemRow }
  | { kind: 'limit'; retryAfterSeconds: number; limit: number; raisedUntil: Date | null };

/** Why a cluster refused a host's enrolment (what the console counts per cluster). */
export type EnrollmentRefusalReason = 'hourly-limit' | 'other-customer';

/** Column arrays of one group commit (unnest is far cheaper than a VALUES list of many rows). */
export interface BatchArrays {
  /**
   * One entry per report with samples: its system and time, and its series set (only the set's id
   * and the values travel to the database).
   */
  reports: { systemId: number[]; ms: number[]; sets: SeriesSet[] };
  /** Every report's values, report after report in `reports` order. */
  values: number[];
  events: { systemId: number[]; ms: number[]; type: string[]; severity: string[]; message: string[] };
  systems: {
    id: number[];
    seenMs: number[];
    version: (string | null)[];
    hostname: (string | null)[];
    os: (string | null)[];
    kernel: (string | null)[];
    arch: (string | null)[];
    cores: (number | null)[];
  };
  receivedAt: Date;
}

/** A batch with nothing in it yet; `receivedAt` as given (the group commit raises it to its newest request's). */
export function emptyBatchArrays(receivedAt: Date): BatchArrays {
  return {
    reports: { systemId: [], ms: [], sets: [] },
    values: [],
    events: { systemId: [], ms: [], type: [], severity: [], message: [] },
    systems: { id: [], seenMs: [], version: [], hostname: [], os: [], kernel: [], arch: [], cores: [] },
    receivedAt,
  };
}

export interface BatchResult {
  /** (system, report ts) pairs of which at least one sample was inserted. */
  inserted: { systemId: number; ms: number; rows: number }[];
  statusChanges: { id: number; from: SystemStatus; to: SystemStatus }[];
}

const SYSTEM_COLUMNS = ['id', 'customer_id', 'cluster_id', 'agent_key_hash', 'status', 'agent_version', 'arch'];
const ENROLL_LOCK = 4_121_001;

function mapSystem(row: Record<string, unknown>): AgentSystemRow {
  return {
    id: row['id'] as number,
    customerId: row['customer_id'] as number,
    clusterId: (row['cluster_id'] as number | null) ?? null,
    agentKeyHash: (row['agent_key_hash'] as string | null) ?? null,
    status: row['status'] as SystemStatus,
    agentVersion: (row['agent_version'] as string | null) ?? null,
    arch: (row['arch'] as string | null) ?? null,
  };
}

// One statement, one round trip, one implicit transaction: the reports' rows, the latest values,
// the events and the systems' last-seen/status all commit together.
const STORE_BATCH = numbered(`
WITH reports AS MATERIALIZED (
  SELECT ord::int AS report, system_id, to_timestamp(ms / 1000) AS time, set_id, first, n, sole
  FROM unnest(?::int[], ?::float8[], ?::int[], ?::int[], ?::int[], ?::bool[])
    WITH ORDINALITY AS r(system_id, ms, set_id, first, n, sole, ord)
),
samples AS MATERIALIZED (SELECT ?::float8[] AS value),
-- one row per report: its values are a slice of the batch's values (docs/decisions.md "One row per report")
inserted AS (
  INSERT INTO metrics (time, system_id, set_id, vals)
  SELECT r.time, r.system_id, r.set_id, s.value[r.first : r.first + r.n - 1]::real[]
  FROM reports r, samples s
  ON CONFLICT (system_id, time) DO NOTHING
  RETURNING system_id, time, cardinality(vals) AS n
),
-- each series' newest sample of the batch, named by the report's series set (the names and
-- instances never travel with the values); a system with one report in the batch (nearly every
-- one) takes its report's set and values as they are, without a row per sample
input AS MATERIALIZED (
  SELECT DISTINCT ON (r.system_id, x.name, x.instance) r.system_id, x.name, x.instance, r.time, x.value, r.report, x.k
  FROM reports r
  JOIN metric_series_sets ss ON ss.id = r.set_id
  CROSS JOIN samples s
  CROSS JOIN LATERAL unnest(ss.names, ss.instances, s.value[r.first : r.first + r.n - 1])
    WITH ORDINALITY AS x(name, instance, value, k)
  WHERE NOT r.sole
  ORDER BY r.system_id, x.name, x.instance, r.time DESC
),
-- a system's arrays hold each series once, in its reports' order (the merge's fast path compares
-- them with the stored ones); one row per system (db/migrations/0018). The merge's fast path is
-- taken here when it surely applies (the same series, no new time before any stored one), so the
-- function runs only for a change of set or an older report.
latest AS (
  INSERT INTO system_latest AS l (system_id, names, instances, times, vals)
  SELECT r.system_id, ss.names, ss.instances, array_fill(r.time, ARRAY[r.n]), s.value[r.first : r.first + r.n - 1]
  FROM reports r JOIN metric_series_sets ss ON ss.id = r.set_id CROSS JOIN samples s
  WHERE r.sole
  UNION ALL
  SELECT system_id, array_agg(name ORDER BY report, k), array_agg(instance ORDER BY report, k),
         array_agg(time ORDER BY report, k), array_agg(value ORDER BY report, k)
  FROM input GROUP BY system_id
  ON CONFLICT (system_id) DO UPDATE SET (names, instances, times, vals) = (
    SELECT excluded.names, excluded.instances, excluded.times, excluded.vals
    WHERE l.names = excluded.names AND l.instances = excluded.instances
      AND excluded.times[1] >= ALL (l.times) AND excluded.times[1] <= ALL (excluded.times)
    UNION ALL
    SELECT m.names, m.instances, m.times, m.vals
    FROM system_latest_merge(l.names, l.instances, l.times, l.vals,
                             excluded.names, excluded.instances, excluded.times, excluded.vals) m
    WHERE NOT (l.names = excluded.names AND l.instances = excluded.instances
      AND excluded.times[1] >= ALL (l.times) AND excluded.times[1] <= ALL (excluded.times)))
),
events AS (
  INSERT INTO agent_events (system_id, time, type, severity, message, received_at)
  SELECT system_id, to_timestamp(ms / 1000), type, severity, message, ?::timestamptz
  FROM unnest(?::int[], ?::float8[], ?::text[], ?::text[], ?::text[]) AS e(system_id, ms, type, severity, message)
  ON CONFLICT (system_id, time, type, md5(message)) DO NOTHING
),
touched AS (
  UPDATE systems s SET
    last_seen_at = GREATEST(s.last_seen_at, to_timestamp(t.seen_ms / 1000)),
    agent_version = coalesce(t.version, s.agent_version),
    hostname = coalesce(t.hostname, s.hostname),
    os = coalesce(t.os, s.os),
    kernel = coalesce(t.kernel, s.kernel),
    arch = coalesce(t.arch, s.arch),
    cores = coalesce(t.cores, s.cores),
    status = CASE WHEN s.status IN ('WARNING', 'CRITICAL') THEN s.status ELSE 'ONLINE' END
  FROM unnest(?::int[], ?::float8[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[])
         AS t(id, seen_ms, version, hostname, os, kernel, arch, cores),
       systems old
  WHERE s.id = t.id AND old.id = t.id
  RETURNING s.id, old.status AS old_status, s.status AS new_status
)
SELECT system_id AS id, (extract(epoch FROM time) * 1000)::float8 AS ms, n,
       NULL::text AS old_status, NULL::text AS new_status
FROM inserted
UNION ALL
SELECT id, NULL, NULL, old_status, new_status FROM touched WHERE old_status IS DISTINCT FROM new_status`);

const SERIES_SET_ID = 'SELECT metric_series_set_id(?::text[], ?::text[]) AS id';

/** Where each report's values are in the batch's values (contiguous, in report order; 1-based). */
function reportSlices(arrays: BatchArrays): { first: number[]; n: number[] } {
  const first: number[] = [];
  const n: number[] = [];
  let next = 1;
  for (const set of arrays.reports.sets) {
    first.push(next);
    n.push(set.names.length);
    next += set.names.length;
  }
  return { first, n };
}

/** Per report, whether it is the only report of its system in the batch (the statement's short way). */
function soleReports(systemIds: readonly number[]): boolean[] {
  const counts = new Map<number, number>();
  for (const id of systemIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return systemIds.map((id) => counts.get(id) === 1);
}

const FIND_SYSTEMS = `SELECT agent_id, ${SYSTEM_COLUMNS.join(', ')} FROM systems WHERE agent_id = ANY($1::text[])`;

export function createIngestRepo(db: Knex) {
  // Every request looks its system up, with a fresh read (nothing cached). The lookups of one turn of
  // the event loop share one query (lib/coalesced-loads.ts), with no bound on the queries in flight:
  // one in flight at a time held each saturated request back by up to a round trip more.
  const systemOf = coalescedLoads(async (agentIds: string[]) => {
    const rows = await preparedQuery(db, 'ingest_find_systems', FIND_SYSTEMS, [textArray(agentIds)]);
    return new Map(rows.map((row) => [row['agent_id'] as string, mapSystem(row)]));
  }, Infinity);

  /** Each report's set id: a set is looked up once, then its object keeps its id (series-sets.ts). */
  async function seriesSetIds(sets: readonly SeriesSet[]): Promise<number[]> {
    const ids: number[] = [];
    for (const set of sets) {
      if (set.id === undefined) {
        const result = (await db.raw(SERIES_SET_ID, [set.names as string[], set.instances as string[]])) as {
          rows: { id: number }[];
        };
        set.id = result.rows[0]?.id as number;
      }
      ids.push(set.id);
    }
    return ids;
  }

  return {
    /** The system of an agent `sub`, or null. */
    async findSystemByAgentId(agentId: string): Promise<AgentSystemRow | null> {
      return (await systemOf(agentId)) ?? null;
    },

    async findClusterByEnrollmentKey(key: string): Promise<EnrollmentCluster | null> {
      const row = await db('clusters')
        .select('id', 'customer_id', 'enrollment_key')
        .where({ enrollment_key: key })
        .first();
      return row ? { id: row.id, customerId: row.customer_id, enrollmentKey: row.enrollment_key } : null;
    },

    /**
     * A new PENDING system in `cluster` for `agentId`, unless the cluster already got
     * `maxPerHour` new systems in the last hour (or more while an ADMIN's raise of
     * that cluster runs: the higher of both counts). Serialised per cluster (advisory
     * lock), so concurrent enrolments cannot exceed the limit; a concurrent first
     * report of the same agent finds the row the other one created.
     */
    async registerSystem(input: {
      agentId: string;
      cluster: EnrollmentCluster;
      name: string;
      hostname: string;
      now: Date;
      maxPerHour: number;
    }): Promise<Registration> {
      return db.transaction(async (trx) => {
        await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [ENROLL_LOCK, input.cluster.id]);
        const existing = await trx('systems').select(SYSTEM_COLUMNS).where({ agent_id: input.agentId }).first();
        if (existing) return { kind: 'exists', system: mapSystem(existing) };
        const raise = await trx('cluster_enrollment_raises')
          .where({ cluster_id: input.cluster.id })
          .where('expires_at', '>', input.now)
          .first('hourly_limit', 'expires_at');
        const limit = Math.max(input.maxPerHour, (raise?.hourly_limit as number | undefined) ?? 0);
        const since = new Date(input.now.getTime() - 3600_000);
        const recent = await trx('systems')
          .where({ cluster_id: input.cluster.id, kind: 'agent' }) // a network check enrols nothing
          .where('created_at', '>', since)
          .select(trx.raw('count(*)::int AS n'), trx.raw('min(created_at) AS oldest'))
          .first();
        if ((recent?.n ?? 0) >= limit) {
          const oldest = recent?.oldest ? new Date(recent.oldest).getTime() : input.now.getTime();
          return {
            kind: 'limit',
            retryAfterSeconds: Math.max(1, (oldest + 3600_000 - input.now.getTime()) / 1000),
            limit,
            raisedUntil: raise && limit > input.maxPerHour ? new Date(raise.expires_at as Date) : null,
          };
        }
        const [row] = await trx('systems')
          .insert({
            customer_id: input.cluster.customerId,
            cluster_id: input.cluster.id,
            name: input.name,
            hostname: input.hostname,
            agent_id: input.agentId,
            status: 'PENDING',
            created_at: input.now,
            updated_at: input.now,
          })
          .returning(SYSTEM_COLUMNS);
        return { kind: 'created', system: mapSystem(row) };
      });
    },

    /**
     * One row per refused host and cluster: a host retrying every 30 s stays one row (its attempts
     * counted); a row older than an hour starts over. The cluster's rows older than a day go.
     */
    async recordEnrollmentRefusal(input: {
      clusterId: number;
      agentId: string;
      reason: EnrollmentRefusalReason;
      now: Date;
    }): Promise<void> {
      const hourAgo = new Date(input.now.getTime() - 3600_000);
      await db.raw(
        `INSERT INTO cluster_enrollment_refusals AS r (cluster_id, agent_id, reason, attempts, first_at, last_at)
         VALUES (?, ?, ?, 1, ?, ?)
         ON CONFLICT (cluster_id, agent_id) DO UPDATE SET
           reason = excluded.reason,
           attempts = CASE WHEN r.last_at < ? THEN 1 ELSE r.attempts + 1 END,
           first_at = CASE WHEN r.last_at < ? THEN excluded.first_at ELSE r.first_at END,
           last_at = excluded.last_at`,
        [input.clusterId, input.agentId, input.reason, input.now, input.now, hourAgo, hourAgo],
      );
      await db('cluster_enrollment_refusals')
        .where({ cluster_id: input.clusterId })
        .where('last_at', '<', new Date(input.now.getTime() - 86_400_000))
        .delete();
    },

    /** Binds a system to its agent key, once: false when another request bound it first. */
    async bindAgentKey(systemId: number, keyHash: string): Promise<boolean> {
      const updated = await db('systems')
        .where({ id: systemId })
        .whereNull('agent_key_hash')
        .update({ agent_key_hash: keyHash });
      return updated === 1;
    },

    async storeBatch(batch: BatchArrays): Promise<BatchResult> {
      const { reports: r, events: e, systems: s } = batch;
      const slices = reportSlices(batch);
      const setIds = await seriesSetIds(r.sets);
      const rows = await preparedQuery(db, 'ingest_store_batch', STORE_BATCH, [
        numberArray(r.systemId),
        numberArray(r.ms),
        numberArray(setIds),
        numberArray(slices.first),
        numberArray(slices.n),
        boolArray(soleReports(r.systemId)),
        float8ArrayBinary(batch.values),
        batch.receivedAt,
        numberArray(e.systemId),
        numberArray(e.ms),
        textArray(e.type),
        textArray(e.severity),
        textArray(e.message),
        numberArray(s.id),
        numberArray(s.seenMs),
        textArray(s.version),
        textArray(s.hostname),
        textArray(s.os),
        textArray(s.kernel),
        textArray(s.arch),
        numberArray(s.cores),
      ]);
      const out: BatchResult = { inserted: [], statusChanges: [] };
      for (const row of rows) {
        if (row['n'] !== null)
          out.inserted.push({ systemId: row['id'] as number, ms: row['ms'] as number, rows: row['n'] as number });
        else
          out.statusChanges.push({
            id: row['id'] as number,
            from: row['old_status'] as SystemStatus,
            to: row['new_status'] as SystemStatus,
          });
      }
      return out;
    },
  };
}

export type IngestRepo = ReturnType<typeof createIngestRepo>;
