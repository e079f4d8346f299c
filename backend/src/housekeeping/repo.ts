/** SQL of housekeeping: rows whose life is over. */
import type { Knex } from 'knex';

export function createHousekeepingRepo(db: Knex) {
  return {
    /** Deletes expired sign-in artefacts; returns how many rows of each went. */
    async deleteExpiredSignInRows(now: Date): Promise<Record<string, number>> {
      const sessions = await db('sessions')
        .where('expires_at', '<=', now)
        .orWhere('absolute_expires_at', '<=', now)
        .delete();
      const trustedDevices = await db('trusted_devices').where('expires_at', '<=', now).delete();
      const emailCodes = await db('email_codes').where('expires_at', '<=', now).delete();
      const resetTokens = await db('password_reset_tokens').where('expires_at', '<=', now).delete();
      return { sessions, trustedDevices, emailCodes, resetTokens };
    },

    storageJobs: () => storageJobs(db),
    databaseUsage: () => databaseUsage(db),

    legacyTables: () => legacyTables(db),

    /**
     * Drops the per-sample rows kept from before one row per report, with their rollups (on
     * TimescaleDB the continuous aggregates depend on `metrics_legacy` and go with it).
     */
    async dropLegacyTables(): Promise<void> {
      await db.transaction(async (trx) => {
        await trx.raw('DROP TABLE IF EXISTS metrics_legacy CASCADE');
        for (const view of ['metrics_5m_legacy', 'metrics_1h_legacy']) {
          const [kind] = (
            (await trx.raw('SELECT relkind FROM pg_class WHERE oid = to_regclass(?)', [view])) as {
              rows: { relkind: string }[];
            }
          ).rows;
          if (kind?.relkind === 'r') await trx.raw(`DROP TABLE ${view} CASCADE`);
          else if (kind) await trx.raw(`DROP ${kind.relkind === 'm' ? 'MATERIALIZED ' : ''}VIEW ${view} CASCADE`);
        }
      });
    },

    /** Deletes agent events received before `before` (evaluation reads only the last minutes). */
    async deleteAgentEventsBefore(before: Date): Promise<number> {
      return db('agent_events').where('received_at', '<', before).delete();
    },
  };
}

export type HousekeepingRepo = ReturnType<typeof createHousekeepingRepo>;

/** One TimescaleDB policy job of ours and how its runs went (timescaledb_information). */
export interface StorageJobRow {
  jobId: number;
  name: string;
  relation: string | null;
  scheduleSeconds: number;
  lastRunStatus: string | null;
  lastRunStartedAt: Date | null;
  lastSuccessAt: Date | null;
  nextStartAt: Date | null;
  lastError: string | null;
}

/**
 * The policy jobs on metrics and its rollups with their last run and last error; [] without
 * TimescaleDB (the plain-PostgreSQL fallback has no jobs to watch).
 */
async function storageJobs(db: Knex): Promise<StorageJobRow[]> {
  const present = (await db.raw("SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'")) as { rows: unknown[] };
  if (present.rows.length === 0) return [];
  const result = (await db.raw(`
    SELECT j.job_id AS "jobId", j.application_name AS name, j.hypertable_name AS relation,
           extract(epoch FROM j.schedule_interval)::float8 AS "scheduleSeconds",
           -- "never" is -infinity there, which pg would hand over as a number
           s.last_run_status AS "lastRunStatus",
           nullif(s.last_run_started_at, '-infinity') AS "lastRunStartedAt",
           nullif(s.last_successful_finish, '-infinity') AS "lastSuccessAt",
           nullif(s.next_start, '-infinity') AS "nextStartAt",
           e.err_message AS "lastError"
      FROM timescaledb_information.jobs j
      LEFT JOIN timescaledb_information.job_stats s USING (job_id)
      LEFT JOIN LATERAL (
        SELECT err_message FROM timescaledb_information.job_errors je
         WHERE je.job_id = j.job_id ORDER BY je.finish_time DESC LIMIT 1
      ) e ON true
     WHERE j.job_id >= 1000 -- policies (TimescaleDB's own jobs have ids below 1000)
     ORDER BY j.job_id`)) as { rows: StorageJobRow[] };
  return result.rows;
}

/** How much disk the database and the samples take, and how much of `metrics` is compressed. */
export interface DatabaseUsage {
  timescale: boolean;
  databaseBytes: number;
  /**
   * `metrics` with its indexes (and its chunks and their compressed data on TimescaleDB), plus the
   * per-sample rows kept from before one row per report (`metrics_legacy`) while they exist.
   */
  metricsBytes: number;
  chunks: number;
  compressedChunks: number;
  /** Before and after compression, over the compressed chunks (null while none is compressed). */
  compression: { beforeBytes: number; afterBytes: number } | null;
}

async function databaseUsage(db: Knex): Promise<DatabaseUsage> {
  const one = async <T>(sql: string) => ((await db.raw(sql)) as { rows: T[] }).rows[0] as T;
  const { timescale, databaseBytes } = await one<{ timescale: boolean; databaseBytes: string }>(`
    SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') AS timescale,
           pg_database_size(current_database()) AS "databaseBytes"`);
  const isHypertable =
    timescale &&
    (
      await one<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = 'metrics') AS found`,
      )
    ).found;
  const legacy = await legacyBytes(db, timescale);
  if (!isHypertable) {
    const { metricsBytes } = await one<{ metricsBytes: string }>(
      `SELECT coalesce(pg_total_relation_size(to_regclass('metrics')), 0) AS "metricsBytes"`,
    );
    return {
      timescale,
      databaseBytes: Number(databaseBytes),
      metricsBytes: Number(metricsBytes) + legacy,
      chunks: 0,
      compressedChunks: 0,
      compression: null,
    };
  }
  const usage = await one<{
    metricsBytes: string;
    chunks: string;
    compressedChunks: string;
    before: string | null;
    after: string | null;
  }>(`
    SELECT hypertable_size('metrics') AS "metricsBytes",
           (SELECT count(*) FROM timescaledb_information.chunks WHERE hypertable_name = 'metrics') AS chunks,
           (SELECT count(*) FROM timescaledb_information.chunks
             WHERE hypertable_name = 'metrics' AND is_compressed) AS "compressedChunks",
           -- (no row at all while nothing is compressed)
           (SELECT before_compression_total_bytes FROM hypertable_compression_stats('metrics')) AS before,
           (SELECT after_compression_total_bytes FROM hypertable_compression_stats('metrics')) AS after`);
  return {
    timescale,
    databaseBytes: Number(databaseBytes),
    metricsBytes: Number(usage.metricsBytes) + legacy,
    chunks: Number(usage.chunks),
    compressedChunks: Number(usage.compressedChunks),
    compression:
      usage.before !== null && usage.after !== null && Number(usage.compressedChunks) > 0
        ? { beforeBytes: Number(usage.before), afterBytes: Number(usage.after) }
        : null,
  };
}

/** The per-sample rows kept from before one row per report (docs/decisions.md "One row per report"). */
async function legacyBytes(db: Knex, timescale: boolean): Promise<number> {
  const result = (await db.raw(
    timescale
      ? `SELECT CASE WHEN EXISTS (SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = 'metrics_legacy')
                     THEN hypertable_size(to_regclass('metrics_legacy'))
                     ELSE coalesce(pg_total_relation_size(to_regclass('metrics_legacy')), 0) END AS bytes`
      : `SELECT coalesce(pg_total_relation_size(to_regclass('metrics_legacy')), 0) AS bytes`,
  )) as { rows: { bytes: string }[] };
  return Number(result.rows[0]?.bytes ?? 0);
}

/** A per-sample relation kept from before one row per report, and the time of its newest row (null: empty). */
export interface LegacyTable {
  relation: 'metrics_legacy' | 'metrics_5m_legacy' | 'metrics_1h_legacy';
  newest: Date | null;
}

const LEGACY_TIME_COLUMNS = { metrics_legacy: 'time', metrics_5m_legacy: 'bucket', metrics_1h_legacy: 'bucket' };

/** The legacy relations that exist, with their newest row; and whether TimescaleDB is there (it keeps their policies). */
async function legacyTables(db: Knex): Promise<{ timescale: boolean; tables: LegacyTable[] }> {
  const found = (await db.raw(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') AS timescale,
            to_regclass('metrics_legacy') IS NOT NULL AS metrics_legacy,
            to_regclass('metrics_5m_legacy') IS NOT NULL AS metrics_5m_legacy,
            to_regclass('metrics_1h_legacy') IS NOT NULL AS metrics_1h_legacy`,
  )) as { rows: Record<string, boolean>[] };
  const row = found.rows[0] ?? {};
  const tables: LegacyTable[] = [];
  for (const [relation, column] of Object.entries(LEGACY_TIME_COLUMNS) as [LegacyTable['relation'], string][]) {
    if (!row[relation]) continue;
    const newest = (await db.raw(`SELECT max(${column}) AS newest FROM ${relation}`)) as {
      rows: { newest: Date | null }[];
    };
    tables.push({ relation, newest: newest.rows[0]?.newest ?? null });
  }
  return { timescale: row['timescale'] === true, tables };
}
