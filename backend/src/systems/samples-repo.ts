/**
 * SQL of the chart data: raw rows and rollups, one row per report and per series set
 * (docs/decisions.md "One row per report"). A series is found by its position in each set that
 * holds it, so a series whose position changes between sets stays one line. Per-sample rows kept
 * from before the upgrade (`metrics_legacy` and its rollups) are read beside the new ones until
 * retention has emptied them and the start-up step has dropped them.
 */
import type { Knex } from 'knex';

export interface SeriesQuery {
  systemId: number;
  name: string;
  instance: string;
  from: Date;
  to: Date;
}

export interface Point {
  t: number;
  avg: number;
  min: number;
  max: number;
}

export type RollupView = 'metrics_5m' | 'metrics_1h';

/** Several series of one system over one window: each row is read once for all of them. */
export interface BatchQuery {
  systemId: number;
  series: readonly { name: string; instance: string }[];
  from: Date;
  to: Date;
}

// The series asked (i: 1-based, in the order asked), and per set holding any of them the positions
// to read and whose they are; sets are few, so MATERIALIZED keeps the planner from re-deriving them per row.
const WANTED = `wanted AS (
  SELECT w.name, w.instance, w.i::int AS i FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS w(name, instance, i)),
 sets AS MATERIALIZED (
  SELECT s.id, array_agg(w.i ORDER BY u.k) AS series, array_agg(u.k::int ORDER BY u.k) AS ks
    FROM metric_series_sets s, unnest(s.names, s.instances) WITH ORDINALITY AS u(name, instance, k), wanted w
   WHERE s.names && ?::text[] AND u.name = w.name AND u.instance = w.instance
   GROUP BY s.id)`;

// Every set holding the series, and the series' 1-based position in it.
const POSITIONS = `positions AS (
  SELECT s.id, u.k::int AS k
    FROM metric_series_sets s, unnest(s.names, s.instances) WITH ORDINALITY AS u(name, instance, k)
   WHERE s.names @> ARRAY[?::text] AND u.name = ? AND u.instance = ?)`;

/** float4 to float8 by its shortest text: 12.3 reads 12.3, not 12.300000190734863. */
const exact = (element: string) => `${element}::text::float8`;

const BIN = `extract(epoch FROM date_bin(make_interval(secs => ?), %s, TIMESTAMPTZ 'epoch')) * 1000`;

/** The rows of a batch (`i`, then the point) as one list of points per series asked. */
function bySeries(result: Record<string, unknown>[], count: number): Point[][] {
  const lists: Point[][] = Array.from({ length: count }, () => []);
  for (const row of result) lists[Number(row['i']) - 1]?.push(toPoint(row));
  return lists;
}

function toPoint(row: Record<string, unknown>): Point {
  return { t: Number(row['t']), avg: Number(row['avg']), min: Number(row['min']), max: Number(row['max']) };
}

async function rows(db: Knex, sql: string, bindings: Knex.RawBinding[]): Promise<Record<string, unknown>[]> {
  return ((await db.raw(sql, bindings)) as { rows: Record<string, unknown>[] }).rows;
}

export function createSamplesRepo(db: Knex) {
  // Once the legacy relations are gone they never come back: no need to look again.
  let legacyGone = false;

  async function legacy(): Promise<{ raw: boolean; metrics_5m: boolean; metrics_1h: boolean }> {
    if (legacyGone) return { raw: false, metrics_5m: false, metrics_1h: false };
    const [row] = await rows(
      db,
      `SELECT to_regclass('metrics_legacy') IS NOT NULL AS raw, to_regclass('metrics_5m_legacy') IS NOT NULL AS m5,
              to_regclass('metrics_1h_legacy') IS NOT NULL AS h1`,
      [],
    );
    const found = { raw: row?.['raw'] === true, metrics_5m: row?.['m5'] === true, metrics_1h: row?.['h1'] === true };
    legacyGone = !found.raw && !found.metrics_5m && !found.metrics_1h;
    return found;
  }

  // positions, the new rows, the legacy rows (when read), the bucket width: in the order of the SQL
  const readBindings = (q: SeriesQuery, withLegacy: boolean, bucketSeconds: number) => [
    q.name,
    q.name,
    q.instance,
    q.systemId,
    q.from,
    q.to,
    ...(withLegacy ? [q.systemId, q.name, q.instance, q.from, q.to] : []),
    bucketSeconds,
  ];

  // the series asked, the sets' filter, the new rows, the legacy rows (when read), the bucket width
  const batchBindings = (q: BatchQuery, withLegacy: boolean, bucketSeconds: number) => {
    const names = q.series.map((s) => s.name);
    return [
      names,
      q.series.map((s) => s.instance),
      [...new Set(names)],
      q.systemId,
      q.from,
      q.to,
      ...(withLegacy ? [q.systemId, q.from, q.to] : []),
      bucketSeconds,
    ];
  };

  return {
    /**
     * `rawPoints` of every series asked, in one statement: each report row in the window is read once
     * and the positions asked are taken out of it (one list of points per series, in the order asked).
     */
    async rawBatch(q: BatchQuery, bucketSeconds: number): Promise<Point[][]> {
      const withLegacy = (await legacy()).raw;
      const result = await rows(
        db,
        `WITH ${WANTED},
         samples AS MATERIALIZED (
           SELECT m.time, x.i, ${exact('m.vals[x.k]')} AS value
             FROM metrics m JOIN sets s ON s.id = m.set_id, unnest(s.series, s.ks) AS x(i, k)
            WHERE m.system_id = ? AND m.time >= ? AND m.time < ?
           ${
             withLegacy
               ? `UNION ALL
           SELECT l.time, w.i, l.value
             FROM metrics_legacy l JOIN wanted w ON w.name = l.name AND w.instance = l.instance
            WHERE l.system_id = ? AND l.time >= ? AND l.time < ?`
               : ''
           })
         SELECT i, ${BIN.replace('%s', 'time')} AS t, avg(value) AS avg, min(value) AS min, max(value) AS max
           FROM samples GROUP BY 1, 2 ORDER BY 1, 2`,
        batchBindings(q, withLegacy, bucketSeconds),
      );
      return bySeries(result, q.series.length);
    },

    /** `rollupPoints` of every series asked, in one statement (each rollup row read once). */
    async rollupBatch(view: RollupView, q: BatchQuery, bucketSeconds: number): Promise<Point[][]> {
      const table = view === 'metrics_5m' ? 'metrics_5m' : 'metrics_1h';
      const withLegacy = (await legacy())[table];
      const result = await rows(
        db,
        `WITH ${WANTED},
         buckets AS MATERIALIZED (
           SELECT r.bucket, x.i, ${exact('r.avgs[x.k]')} AS avg, ${exact('r.mins[x.k]')} AS min,
                  ${exact('r.maxs[x.k]')} AS max, r.count
             FROM ${table} r JOIN sets s ON s.id = r.set_id, unnest(s.series, s.ks) AS x(i, k)
            WHERE r.system_id = ? AND r.bucket >= ? AND r.bucket < ?
           ${
             withLegacy
               ? `UNION ALL
           SELECT l.bucket, w.i, l.avg, l.min, l.max, l.count
             FROM ${table}_legacy l JOIN wanted w ON w.name = l.name AND w.instance = l.instance
            WHERE l.system_id = ? AND l.bucket >= ? AND l.bucket < ?`
               : ''
           })
         SELECT i, ${BIN.replace('%s', 'bucket')} AS t,
                sum(avg * count) / nullif(sum(count), 0) AS avg, min(min) AS min, max(max) AS max
           FROM buckets GROUP BY 1, 2 ORDER BY 1, 2`,
        batchBindings(q, withLegacy, bucketSeconds),
      );
      return bySeries(result, q.series.length);
    },

    /** Samples in buckets of `bucketSeconds` from raw rows (date_bin: works without TimescaleDB). */
    async rawPoints(q: SeriesQuery, bucketSeconds: number): Promise<Point[]> {
      const withLegacy = (await legacy()).raw;
      const result = await rows(
        db,
        // the samples first, narrow (MATERIALIZED): re-bucketing then sorts values, not whole rows
        `WITH ${POSITIONS},
         samples AS MATERIALIZED (
           SELECT m.time, ${exact('m.vals[p.k]')} AS value
             FROM metrics m JOIN positions p ON p.id = m.set_id
            WHERE m.system_id = ? AND m.time >= ? AND m.time < ?
           ${
             withLegacy
               ? `UNION ALL
           SELECT time, value FROM metrics_legacy
            WHERE system_id = ? AND name = ? AND instance = ? AND time >= ? AND time < ?`
               : ''
           })
         SELECT ${BIN.replace('%s', 'time')} AS t, avg(value) AS avg, min(value) AS min, max(value) AS max
           FROM samples GROUP BY 1 ORDER BY 1`,
        readBindings(q, withLegacy, bucketSeconds),
      );
      return result.map(toPoint);
    },

    /** Rollup rows re-bucketed to `bucketSeconds`: averages weighted by their sample counts. */
    async rollupPoints(view: RollupView, q: SeriesQuery, bucketSeconds: number): Promise<Point[]> {
      const table = view === 'metrics_5m' ? 'metrics_5m' : 'metrics_1h';
      const withLegacy = (await legacy())[table];
      const result = await rows(
        db,
        `WITH ${POSITIONS},
         buckets AS MATERIALIZED (
           SELECT r.bucket, ${exact('r.avgs[p.k]')} AS avg, ${exact('r.mins[p.k]')} AS min,
                  ${exact('r.maxs[p.k]')} AS max, r.count
             FROM ${table} r JOIN positions p ON p.id = r.set_id
            WHERE r.system_id = ? AND r.bucket >= ? AND r.bucket < ?
           ${
             withLegacy
               ? `UNION ALL
           SELECT bucket, avg, min, max, count FROM ${table}_legacy
            WHERE system_id = ? AND name = ? AND instance = ? AND bucket >= ? AND bucket < ?`
               : ''
           })
         SELECT ${BIN.replace('%s', 'bucket')} AS t,
                sum(avg * count) / nullif(sum(count), 0) AS avg, min(min) AS min, max(max) AS max
           FROM buckets GROUP BY 1 ORDER BY 1`,
        readBindings(q, withLegacy, bucketSeconds),
      );
      return result.map(toPoint);
    },

    /** The series a system reported since `since`, for the chart picker. */
    async recentSeries(systemId: number, since: Date): Promise<{ name: string; instance: string }[]> {
      const withLegacy = (await legacy()).raw;
      const result = await rows(
        db,
        `SELECT u.name, u.instance
           FROM metric_series_sets s, unnest(s.names, s.instances) AS u(name, instance)
          WHERE s.id IN (SELECT DISTINCT set_id FROM metrics WHERE system_id = ? AND time >= ?)
         ${
           withLegacy
             ? `UNION
         SELECT name, instance FROM metrics_legacy WHERE system_id = ? AND time >= ?`
             : ''
         }
         ${withLegacy ? '' : 'GROUP BY 1, 2'}
          ORDER BY 1, 2`,
        [systemId, since, ...(withLegacy ? [systemId, since] : [])],
      );
      return result.map((row) => ({ name: row['name'] as string, instance: row['instance'] as string }));
    },

    /** Deletes every sample of these systems (their rows and the legacy ones). */
    async deleteSamples(systemIds: Knex.QueryBuilder | number[], trx: Knex = db): Promise<void> {
      await trx('metrics').whereIn('system_id', systemIds).delete();
      if ((await legacy()).raw) await trx('metrics_legacy').whereIn('system_id', systemIds).delete();
    },
  };
}
