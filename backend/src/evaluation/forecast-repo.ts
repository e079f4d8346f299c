/**
 * SQL of forecast rules: the least-squares line of a metric's series over the whole hours of a
 * window (from the hourly rollup `metrics_1h`, or from the raw rows binned by the hour where there
 * is no TimescaleDB) and the lines the runs stored (the settings are the settings feature's, read
 * through its service). A window is bounded
 * (at most a few weeks of hourly points), so a fit costs the same whatever history is stored.
 */
import type { Knex } from 'knex';

export const HOUR_MS = 3_600_000;

/** A series' line: its value at `through` (the window's end) and its slope per hour. */
export interface FittedLine {
  systemId: number;
  metric: string;
  instance: string;
  through: Date;
  level: number;
  slopePerH: number;
  /** Hours of the window that hold data. */
  buckets: number;
}

/** Which systems a fit reads: these ids, or every system of these customers (null: all). */
export type FitFilter = { systemIds: readonly number[] } | { customerIds: readonly number[] | null };

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * The fit as common table expressions ending in `fitted` (system_id, instance, buckets, slope,
 * level). The metric's positions in each series set are read once, each instance numbered (`slot`):
 * the points are grouped by numbers, never by text. The hourly points are the rollup's rows as they
 * are (one per hour and series set; an hour whose set changed counts twice, which moves a line by
 * nothing that matters), or the raw rows averaged by the hour. The rows are read once
 * (MATERIALIZED) and each point is taken out of its row's array before the points are grouped:
 * grouped with the arrays still attached, the rows were sorted on disk.
 */
function fitSql(
  filter: FitFilter,
  rollup: boolean,
  metric: string,
  through: Date,
  windowHours: number,
): { sql: string; bindings: Knex.RawBinding[] } {
  const chosen = chosenSql(filter);
  const from = new Date(through.getTime() - windowHours * HOUR_MS);
  // x: the hour's middle in hours before `through`, computed once a row, not once a point
  const x = `extract(epoch FROM bucket + INTERVAL '30 minutes' - ?::timestamptz) / 3600`;
  const points = rollup
    ? `picked AS MATERIALIZED (
         SELECT system_id, set_id, ${x} AS x, avgs AS vals FROM metrics_1h
          WHERE system_id IN (SELECT id FROM chosen) AND bucket >= ? AND bucket < ?),
       points AS MATERIALIZED (
         SELECT r.system_id, p.slot, r.x, r.vals[p.k]::float8 AS value
           FROM picked r JOIN positions p ON p.set_id = r.set_id)`
    : `picked AS MATERIALIZED (
         SELECT system_id, set_id, ${x} AS x, vals
           FROM (SELECT system_id, set_id, date_bin(INTERVAL '1 hour', time, TIMESTAMPTZ 'epoch') AS bucket, vals
                   FROM metrics WHERE system_id IN (SELECT id FROM chosen) AND time >= ? AND time < ?) raw),
       points AS MATERIALIZED (
         SELECT r.system_id, p.slot, r.x, avg(r.vals[p.k]::float8) AS value
           FROM picked r JOIN positions p ON p.set_id = r.set_id GROUP BY 1, 2, 3)`;
  return {
    sql: `chosen AS (${chosen.sql}),
       positions AS MATERIALIZED (
         SELECT s.id AS set_id, u.k::int AS k, u.instance, dense_rank() OVER (ORDER BY u.instance)::int AS slot
           FROM metric_series_sets s, unnest(s.names, s.instances) WITH ORDINALITY AS u(name, instance, k)
          WHERE s.names @> ARRAY[?::text] AND u.name = ?),
       ${points},
       -- the regr_* aggregates share one running state a group: one pass over the points
       lines AS (
         SELECT system_id, slot, count(*)::int AS buckets,
                coalesce(regr_slope(value, x), 0) AS slope, coalesce(regr_intercept(value, x), regr_avgy(value, x)) AS level
           FROM points GROUP BY 1, 2),
       fitted AS MATERIALIZED (
         SELECT l.system_id, i.instance, l.buckets, l.slope, l.level
           FROM lines l JOIN (SELECT DISTINCT slot, instance FROM positions) i ON i.slot = l.slot)`,
    bindings: [...chosen.bindings, metric, metric, through, from, through],
  };
}

const lineOfRow = (metric: string, through: Date) => (row: Record<string, unknown>) => ({
  systemId: row['system_id'] as number,
  metric,
  instance: row['instance'] as string,
  through,
  level: Number(row['level']),
  slopePerH: Number(row['slope']),
  buckets: row['buckets'] as number,
});

function chosenSql(filter: FitFilter): { sql: string; bindings: Knex.RawBinding[] } {
  if ('systemIds' in filter) return { sql: 'SELECT unnest(?::int[]) AS id', bindings: [[...filter.systemIds]] };
  return {
    sql: 'SELECT id FROM systems WHERE ?::int[] IS NULL OR customer_id = ANY(?::int[])',
    bindings: [
      filter.customerIds ? [...filter.customerIds] : null,
      filter.customerIds ? [...filter.customerIds] : null,
    ],
  };
}

/** What a stored line is checked against: a forecast rule's metric, direction, threshold and horizon. */
export interface LineTarget {
  metric: string;
  /** 1: rises to the threshold; -1: falls to it. */
  direction: 1 | -1;
  threshold: number;
  horizonHours: number;
}

async function rollupExists(q: Knex): Promise<boolean> {
  return (
    rows<{ found: boolean }>(await q.raw("SELECT to_regclass('metrics_1h') IS NOT NULL AS found"))[0]?.found === true
  );
}

export function createForecastRepo(db: Knex) {
  // once the TimescaleDB step made the rollup it stays: asked again only while it is missing
  let rollup = false;
  const hasRollup = async (q: Knex) => (rollup ||= await rollupExists(q));
  return {
    /**
     * The lines of `metric`'s series of the chosen systems over the `windowHours` whole hours before
     * `through`. x is the hour's middle, in hours before `through`: the intercept is the line's value
     * at `through`. A series with one point has no slope (0).
     */
    async fitLines(
      metric: string,
      through: Date,
      windowHours: number,
      filter: FitFilter,
      q: Knex = db,
    ): Promise<FittedLine[]> {
      const fit = fitSql(filter, await hasRollup(q), metric, through, windowHours);
      // by system and instance: the preview lists lines that cross at the same time in this order
      const result = await q.raw(`WITH ${fit.sql} SELECT * FROM fitted ORDER BY system_id, instance`, fit.bindings);
      return rows<Record<string, unknown>>(result).map(lineOfRow(metric, through));
    },
    /**
     * Fits the lines of `metric` of these systems and stores them in the same statement, in place of
     * their lines before (a series that is gone loses its line), and notes the systems as fitted
     * through `through` over `windowHours`. Answers the new lines.
     */
    async refitLines(
      metric: string,
      systemIds: readonly number[],
      through: Date,
      windowHours: number,
      trx: Knex = db,
    ): Promise<FittedLine[]> {
      if (!systemIds.length) return [];
      const fit = fitSql({ systemIds: [...new Set(systemIds)] }, await hasRollup(trx), metric, through, windowHours);
      const result = await trx.raw(
        `WITH ${fit.sql},
         gone AS (
           DELETE FROM forecast_fits f
            WHERE f.metric = ? AND f.system_id IN (SELECT id FROM chosen)
              AND NOT EXISTS (SELECT 1 FROM fitted n WHERE n.system_id = f.system_id AND n.instance = f.instance)),
         stored AS (
           INSERT INTO forecast_fits (system_id, metric, instance, through, level, slope_per_h, buckets)
           SELECT system_id, ?, instance, ?, level, slope, buckets FROM fitted
           ON CONFLICT (system_id, metric, instance) DO UPDATE
              SET through = EXCLUDED.through, level = EXCLUDED.level, slope_per_h = EXCLUDED.slope_per_h,
                  buckets = EXCLUDED.buckets),
         noted AS (
           INSERT INTO forecast_refits (system_id, metric, through, window_hours)
           SELECT id, ?, ?, ? FROM chosen
           ON CONFLICT (system_id, metric) DO UPDATE
              SET through = EXCLUDED.through, window_hours = EXCLUDED.window_hours)
         SELECT * FROM fitted`,
        [...fit.bindings, metric, metric, through, metric, through, windowHours],
      );
      return rows<Record<string, unknown>>(result).map(lineOfRow(metric, through));
    },
    /** When each system's lines of `metric` were last fitted (of the fleet part, null: all): the window's end and its hours. */
    async refitsOf(
      metric: string,
      part: number | null,
      trx: Knex = db,
    ): Promise<{ systemId: number; through: Date; windowHours: number }[]> {
      const found = await trx('forecast_refits')
        .where({ metric })
        .modify((query) => {
          if (part !== null) query.whereIn('system_id', trx('systems').where({ customer_id: part }).select('id'));
        })
        .select('system_id', 'through', 'window_hours');
      return found.map((row: Record<string, unknown>) => ({
        systemId: row['system_id'] as number,
        through: row['through'] as Date,
        windowHours: row['window_hours'] as number,
      }));
    },
    /**
     * The stored lines with enough hours that reach some rule's threshold within its horizon from
     * `now` (a superset of what fires: scopes, globs and flatness are decided by the caller). A line
     * left out cannot fire, so an open alert on it resolves.
     */
    async loadLines(
      targets: readonly LineTarget[],
      now: Date,
      minBuckets: number,
      part: number | null,
      trx: Knex = db,
    ): Promise<FittedLine[]> {
      if (!targets.length) return [];
      const result = await trx.raw(
        // a join on the few targets, not a subquery per line: 100,000 lines each unnesting the targets took ~0.5 s
        `SELECT DISTINCT f.system_id, f.metric, f.instance, f.through, f.level, f.slope_per_h, f.buckets
           FROM forecast_fits f
           JOIN unnest(?::text[], ?::float8[], ?::float8[], ?::float8[]) AS t(metric, dir, threshold, horizon)
             ON t.metric = f.metric
          WHERE f.buckets >= ?
            AND (?::int IS NULL OR f.system_id IN (SELECT id FROM systems WHERE customer_id = ?))
            AND t.dir * f.slope_per_h > 0
            AND t.dir * (t.threshold - f.level
                         - f.slope_per_h * (extract(epoch FROM ?::timestamptz - f.through) / 3600 + t.horizon)) <= 1e-9`,
        [
          targets.map((t) => t.metric),
          targets.map((t) => t.direction),
          targets.map((t) => t.threshold),
          targets.map((t) => t.horizonHours),
          minBuckets,
          part,
          part,
          now,
        ],
      );
      return rows<Record<string, unknown>>(result).map((row) => ({
        systemId: row['system_id'] as number,
        metric: row['metric'] as string,
        instance: row['instance'] as string,
        through: row['through'] as Date,
        level: row['level'] as number,
        slopePerH: row['slope_per_h'] as number,
        buckets: row['buckets'] as number,
      }));
    },
    /** The stored lines of one system's series of these metrics (the system page's projection). */
    async linesOfSystem(systemId: number, metrics: readonly string[], q: Knex = db): Promise<FittedLine[]> {
      if (!metrics.length) return [];
      const found = await q('forecast_fits')
        .where({ system_id: systemId })
        .whereIn('metric', [...metrics])
        .orderBy(['metric', 'instance'])
        .select('metric', 'instance', 'through', 'level', 'slope_per_h', 'buckets');
      return found.map((row: Record<string, unknown>) => ({
        systemId,
        metric: row['metric'] as string,
        instance: row['instance'] as string,
        through: row['through'] as Date,
        level: Number(row['level']),
        slopePerH: Number(row['slope_per_h']),
        buckets: row['buckets'] as number,
      }));
    },
    /** The system with what decides its rules and time zone, when `visible` (null: every customer) shows it. */
    async systemForForecasts(
      systemId: number,
      visible: ReadonlySet<number> | null,
      q: Knex = db,
    ): Promise<{ id: number; customerId: number; clusterId: number | null; timeZone: string } | null> {
      const row = await q('systems as s')
        .join('customers as c', 'c.id', 's.customer_id')
        .where('s.id', systemId)
        .modify((query) => {
          if (visible) query.whereIn('s.customer_id', [...visible]);
        })
        .first('s.id', 's.customer_id', 's.cluster_id', 'c.time_zone');
      return row
        ? { id: row.id, customerId: row.customer_id, clusterId: row.cluster_id, timeZone: row.time_zone ?? 'UTC' }
        : null;
    },
  };
}

export type ForecastRepo = ReturnType<typeof createForecastRepo>;
