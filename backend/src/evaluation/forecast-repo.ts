/**
 * SQL of forecast rules: the least-squares line of a metric's series over the whole hours of a
 * window (from the hourly rollup `metrics_1h`, or from the raw rows binned by the hour where there
 * is no TimescaleDB), the lines the runs stored, and the forecast settings. A window is bounded
 * (at most a few weeks of hourly points), so a fit costs the same whatever history is stored.
 */
import type { Knex } from 'knex';
import { FORECAST_DEFAULTS, type ForecastSettings } from '../../../contracts/settings.js';

export const HOUR_MS = 3_600_000;
const SETTINGS_KEY = 'forecasts';

export type { ForecastSettings };

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
 * The hourly points of the metric's series: the rollup's rows as they are (one per hour and series
 * set; an hour whose set changed counts twice, which moves a line by nothing that matters), or the
 * raw rows averaged by the hour. The rows are read once (MATERIALIZED), then split by position:
 * joined the other way round, each position re-read them all.
 */
function pointsSql(rollup: boolean): string {
  return rollup
    ? `picked AS MATERIALIZED (
         SELECT system_id, set_id, bucket, avgs AS vals FROM metrics_1h
          WHERE system_id IN (SELECT id FROM chosen) AND bucket >= ? AND bucket < ?),
       points AS (
         SELECT r.system_id, p.instance, r.bucket, r.vals[p.k]::float8 AS value
           FROM picked r JOIN positions p ON p.id = r.set_id)`
    : `picked AS MATERIALIZED (
         SELECT system_id, set_id, date_bin(INTERVAL '1 hour', time, TIMESTAMPTZ 'epoch') AS bucket, vals FROM metrics
          WHERE system_id IN (SELECT id FROM chosen) AND time >= ? AND time < ?),
       points AS (
         SELECT r.system_id, p.instance, r.bucket, avg(r.vals[p.k]::float8) AS value
           FROM picked r JOIN positions p ON p.id = r.set_id GROUP BY 1, 2, 3)`;
}

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

export async function rollupExists(q: Knex): Promise<boolean> {
  return (
    rows<{ found: boolean }>(await q.raw("SELECT to_regclass('metrics_1h') IS NOT NULL AS found"))[0]?.found === true
  );
}

/**
 * The lines of `metric`'s series of the chosen systems over the `windowHours` whole hours before
 * `through`. x is the hour's middle, in hours before `through`: the intercept is the line's value
 * at `through`. A series with one point has no slope (0).
 */
export async function fitLines(
  q: Knex,
  metric: string,
  through: Date,
  windowHours: number,
  filter: FitFilter,
): Promise<FittedLine[]> {
  const chosen = chosenSql(filter);
  const from = new Date(through.getTime() - windowHours * HOUR_MS);
  const result = await q.raw(
    `WITH chosen AS (${chosen.sql}),
     positions AS (
       SELECT s.id, u.k::int AS k, u.instance
         FROM metric_series_sets s, unnest(s.names, s.instances) WITH ORDINALITY AS u(name, instance, k)
        WHERE s.names @> ARRAY[?::text] AND u.name = ?),
     ${pointsSql(await rollupExists(q))},
     placed AS (
       SELECT system_id, instance, value,
              extract(epoch FROM bucket + INTERVAL '30 minutes' - ?::timestamptz) / 3600 AS x
         FROM points)
     SELECT system_id, instance, count(*)::int AS buckets,
            coalesce(regr_slope(value, x), 0) AS slope,
            coalesce(regr_intercept(value, x), avg(value)) AS level
       FROM placed GROUP BY 1, 2`,
    [...chosen.bindings, metric, metric, from, through, through],
  );
  return rows<Record<string, unknown>>(result).map((row) => ({
    systemId: row['system_id'] as number,
    metric,
    instance: row['instance'] as string,
    through,
    level: Number(row['level']),
    slopePerH: Number(row['slope']),
    buckets: row['buckets'] as number,
  }));
}

/** The settings (written by settings/forecast/service.ts), or their defaults; in the run's transaction. */
export async function loadForecastSettings(q: Knex): Promise<ForecastSettings> {
  const row = (await q('app_settings').where({ key: SETTINGS_KEY }).first('value')) as
    { value: Partial<ForecastSettings> } | undefined;
  return { ...FORECAST_DEFAULTS, ...row?.value };
}

/**
 * Reporting systems whose lines of `metric` were not fitted through `through` over `windowHours`
 * yet, never-fitted first: at most `limit` (of the fleet part, null: all).
 */
export async function dueForRefit(
  trx: Knex,
  metric: string,
  through: Date,
  windowHours: number,
  part: number | null,
  limit: number,
): Promise<number[]> {
  const result = await trx.raw(
    `SELECT s.id FROM systems s
       LEFT JOIN forecast_refits r ON r.system_id = s.id AND r.metric = ?
      WHERE s.status <> 'PENDING' AND (?::int IS NULL OR s.customer_id = ?)
        AND (r.system_id IS NULL OR r.through < ? OR r.window_hours <> ?)
      ORDER BY r.through NULLS FIRST, s.id
      LIMIT ?`,
    [metric, part, part, through, windowHours, limit],
  );
  return rows<{ id: number }>(result).map((row) => row.id);
}

/** Replaces the lines of `metric` of these systems (a series that is gone loses its line). */
export async function storeLines(
  trx: Knex,
  metric: string,
  systemIds: readonly number[],
  through: Date,
  windowHours: number,
  lines: readonly FittedLine[],
): Promise<void> {
  if (!systemIds.length) return;
  await trx('forecast_fits').where({ metric }).whereIn('system_id', systemIds).delete();
  if (lines.length) {
    await trx.raw(
      `INSERT INTO forecast_fits (system_id, metric, instance, through, level, slope_per_h, buckets)
       SELECT u.system_id, ?, u.instance, ?, u.level, u.slope, u.buckets
         FROM unnest(?::int[], ?::text[], ?::float8[], ?::float8[], ?::int[]) AS u(system_id, instance, level, slope, buckets)`,
      [
        metric,
        through,
        lines.map((l) => l.systemId),
        lines.map((l) => l.instance),
        lines.map((l) => l.level),
        lines.map((l) => l.slopePerH),
        lines.map((l) => l.buckets),
      ],
    );
  }
  await trx.raw(
    `INSERT INTO forecast_refits (system_id, metric, through, window_hours)
     SELECT unnest(?::int[]), ?, ?, ?
     ON CONFLICT (system_id, metric) DO UPDATE SET through = EXCLUDED.through, window_hours = EXCLUDED.window_hours`,
    [[...systemIds], metric, through, windowHours],
  );
}

/** What a stored line is checked against: a forecast rule's metric, direction, threshold and horizon. */
export interface LineTarget {
  metric: string;
  /** 1: rises to the threshold; -1: falls to it. */
  direction: 1 | -1;
  threshold: number;
  horizonHours: number;
}

/**
 * The stored lines with enough hours that reach some rule's threshold within its horizon from
 * `now` (a superset of what fires: scopes, globs and flatness are decided by the caller). A line
 * left out cannot fire, so an open alert on it resolves.
 */
export async function loadLines(
  trx: Knex,
  targets: readonly LineTarget[],
  now: Date,
  minBuckets: number,
  part: number | null,
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
}

/** The stored lines of one system's series of these metrics (the system page's projection). */
export async function linesOfSystem(q: Knex, systemId: number, metrics: readonly string[]): Promise<FittedLine[]> {
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
}

/** The system with what decides its rules and time zone, when `visible` (null: every customer) shows it. */
export async function systemForForecasts(
  q: Knex,
  systemId: number,
  visible: ReadonlySet<number> | null,
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
}
