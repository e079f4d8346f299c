/** The rollups metrics_5m and metrics_1h (continuous aggregates) and their one-time backfill. */
import type { Interval } from '../interval.js';
import type { RetentionConfig } from '../environment.js';
import { query, type StepContext } from './context.js';

export interface Rollup {
  view: 'metrics_5m' | 'metrics_1h';
  /** Bucket width, a constant of the schema (chart queries depend on it). */
  width: string;
  /** Newest data left to real-time aggregation; also where the backfill ends. */
  endOffset: string;
  schedule: string;
  retention(config: RetentionConfig): Interval;
  retentionVariable: string;
  /**
   * The width of the rollup's own chunks, null: TimescaleDB's (ten raw chunks). A chunk is
   * compressed only once all of it is past compress_after, and dropped only once all of it is past
   * retention: with ten-day chunks metrics_5m held up to ten days more than its policies say, both
   * uncompressed and in all (40 of 30). One day keeps that to a day, and each compressed segment
   * still holds a day of a system's buckets (288 rows). metrics_1h keeps ten days: 240 hourly rows a segment, and ten days
   * are little of 400.
   */
  chunkInterval: string | null;
  /**
   * Age at which the rollup's chunks are compressed when sooner than its refresh window's end, null:
   * a day past that end. metrics_5m: two days, the raw samples' default (a day past its window kept
   * 8 of its 30 days uncompressed, at 2.2 × the compressed bytes); a late report's refresh may now
   * rewrite a compressed day, as late reports already do in the raw table. metrics_1h: 8 days of
   * 400 is little.
   */
  compressAfter: string | null;
}

export const ROLLUPS: readonly Rollup[] = [
  {
    view: 'metrics_5m',
    width: '5 minutes',
    endOffset: '5 minutes',
    schedule: '5 minutes',
    retention: (config) => config.rollup5mRetention,
    retentionVariable: 'METRICS_5M_RETENTION',
    chunkInterval: '1 day',
    compressAfter: '2 days',
  },
  {
    view: 'metrics_1h',
    width: '1 hour',
    endOffset: '1 hour',
    schedule: '1 hour',
    retention: (config) => config.rollup1hRetention,
    retentionVariable: 'METRICS_1H_RETENTION',
    chunkInterval: null,
    compressAfter: null,
  },
];

export const BACKFILL_MARKER = 'timescale_backfill_done';

/**
 * Both rollups read `metrics` itself, not one another: the hourly backfill can then use all the raw
 * history (up to METRICS_1H_RETENTION), and its avg is exact, not an average of averages.
 * One row per bucket, system and series set (docs/decisions.md "One row per report"): `count`
 * reports, and element-wise `avgs`, `mins`, `maxs` (element k: the set's k-th series).
 * Real-time (materialized_only = false): charts see the newest samples too.
 * One composite index serves chart queries (system + time range) instead of one per column.
 */
function createSql(rollup: Rollup): string {
  return `
    CREATE MATERIALIZED VIEW IF NOT EXISTS ${rollup.view}
    WITH (timescaledb.continuous, timescaledb.materialized_only = false, timescaledb.create_group_indexes = false) AS
    SELECT time_bucket(INTERVAL '${rollup.width}', time) AS bucket, system_id, set_id, count(*) AS count,
           metrics_avg(vals) AS avgs, metrics_min(vals) AS mins, metrics_max(vals) AS maxs
      FROM metrics
     GROUP BY bucket, system_id, set_id
    WITH NO DATA`;
}

/** Creates the missing rollups; returns the views created now. */
export async function ensureRollups(context: StepContext): Promise<string[]> {
  const { knex, report } = context;
  const existing = await query<{ view_name: string; materialized_only: boolean }>(
    knex,
    `SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates
      WHERE view_schema = current_schema()`,
  );
  const created: string[] = [];
  for (const rollup of ROLLUPS) {
    const found = existing.find((row) => row.view_name === rollup.view);
    if (!found) {
      await knex.raw(createSql(rollup));
      created.push(rollup.view);
    } else if (found.materialized_only) {
      // cheap to fix and the charts rely on it: without it the newest buckets are missing
      await knex.raw(`ALTER MATERIALIZED VIEW ${rollup.view} SET (timescaledb.materialized_only = false)`);
      report.info(`${rollup.view} now includes real-time data (materialized_only = false)`);
    }
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${rollup.view}_system_idx ON ${rollup.view} (system_id, bucket)`);
    await ensureChunkInterval(context, rollup, !found);
  }
  if (created.length) report.info(`Created the rollups ${created.join(', ')}`);
  return created;
}

/** Sets the width of the rollup's next chunks; the chunks it has keep theirs. */
async function ensureChunkInterval({ knex, report }: StepContext, rollup: Rollup, created: boolean): Promise<void> {
  if (rollup.chunkInterval === null) return;
  const [chunks] = await query<{ hypertable: string; current: string; differs: boolean }>(
    knex,
    `SELECT format('%I.%I', d.hypertable_schema, d.hypertable_name) AS hypertable, d.time_interval::text AS current,
            d.time_interval <> ?::interval AS differs
       FROM timescaledb_information.continuous_aggregates a
       JOIN timescaledb_information.dimensions d
         ON d.hypertable_schema = a.materialization_hypertable_schema
        AND d.hypertable_name = a.materialization_hypertable_name
      WHERE a.view_schema = current_schema() AND a.view_name = ?`,
    [rollup.chunkInterval, rollup.view],
  );
  if (!chunks?.differs) return;
  await knex.raw('SELECT set_chunk_time_interval(?::regclass, ?::interval)', [chunks.hypertable, rollup.chunkInterval]);
  if (!created)
    report.info(
      `${rollup.view}'s new chunks span ${rollup.chunkInterval} (was ${chunks.current}); older ones keep theirs`,
    );
}

interface WindowRow {
  start: string;
  end: string;
}

/**
 * The one-time backfill: one refresh per rollup, bounded by its retention (METRICS_5M_RETENTION
 * bounds metrics_5m) and by the oldest raw sample. Never earlier than the raw data: a refresh over
 * a range whose raw chunks are gone would delete the rollup rows of that range.
 * Must run outside a transaction block (refresh_continuous_aggregate commits as it goes).
 */
export async function backfillRollups({ knex, retention, report }: StepContext, created: string[]): Promise<boolean> {
  const [marker] = await query(knex, 'SELECT 1 FROM app_settings WHERE key = ?', [BACKFILL_MARKER]);
  if (marker && created.length === 0) return false;
  for (const rollup of ROLLUPS) {
    // no row: no raw samples, or none older than the end offset (real-time aggregation covers those)
    const [range] = await query<WindowRow>(
      knex,
      `WITH raw AS (SELECT min(time) AS oldest FROM metrics),
            bounds AS (
              SELECT greatest(time_bucket(?::interval, oldest), now() - ?::interval) AS start_at,
                     now() - ?::interval AS end_at
                FROM raw WHERE oldest IS NOT NULL)
       SELECT start_at::text AS start, end_at::text AS end FROM bounds WHERE start_at < end_at`,
      [rollup.width, rollup.retention(retention).text, rollup.endOffset],
    );
    if (!range) continue;
    await knex.raw('CALL refresh_continuous_aggregate(?, ?::timestamptz, ?::timestamptz)', [
      rollup.view,
      range.start,
      range.end,
    ]);
    report.info(`Backfilled ${rollup.view} from ${range.start} to ${range.end}`);
  }
  await knex.raw(
    `INSERT INTO app_settings (key, value) VALUES (?, jsonb_build_object('at', now()))
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [BACKFILL_MARKER],
  );
  return true;
}
