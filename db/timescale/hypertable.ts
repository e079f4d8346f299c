/** The extension, `metrics` as a hypertable, and its compression settings. */
import { query, type StepContext } from './context.js';

export type ExtensionState =
  { available: false; notPreloaded?: true } | { available: true; installed: string; latest: string };

interface AvailableRow {
  installed: string | null;
  latest: string;
}

/** Creates the extension when the server has it loaded; `available: false` on a plain PostgreSQL. */
export async function ensureExtension({ knex, report }: StepContext): Promise<ExtensionState> {
  const [before] = await query<AvailableRow>(
    knex,
    `SELECT installed_version AS installed, default_version AS latest
       FROM pg_available_extensions WHERE name = 'timescaledb'`,
  );
  if (!before) return { available: false };
  if (before.installed === null) {
    // the files are there but the server did not load the library: CREATE EXTENSION would fail
    const [preload] = await query<{ libraries: string }>(
      knex,
      "SELECT current_setting('shared_preload_libraries') AS libraries",
    );
    if (!/(^|[\s,])timescaledb($|[\s,])/.test(preload?.libraries ?? ''))
      return { available: false, notPreloaded: true };
  }
  await knex.raw('CREATE EXTENSION IF NOT EXISTS timescaledb');
  const installed = before.installed ?? before.latest;
  if (installed !== before.latest) {
    // after an image upgrade the catalog stays at the old version until updated by hand
    report.warn(
      `TimescaleDB extension is at version ${installed} but the server ships ${before.latest}: ` +
        'run ALTER EXTENSION timescaledb UPDATE as the first command of a new session (psql -X)',
    );
  }
  return { available: true, installed, latest: before.latest };
}

export type HypertableState = { hypertable: true; converted: boolean } | { hypertable: false; refusedBytes: number };

interface DimensionRow {
  chunk_interval: string;
  differs: boolean;
}

/**
 * Makes `metrics` a hypertable, unless it is a plain table larger than METRICS_MAX_MIGRATE_BYTES:
 * converting rewrites every row inside one transaction, which on a big table outlasts the
 * healthcheck's start period and needs as much free disk again (README "emergency reclaim").
 */
export async function ensureHypertable({ knex, retention, report }: StepContext): Promise<HypertableState> {
  const chunk = retention.chunkInterval.text;
  const [dimension] = await query<DimensionRow>(
    knex,
    `SELECT time_interval::text AS chunk_interval, time_interval <> ?::interval AS differs
       FROM timescaledb_information.dimensions
      WHERE hypertable_schema = current_schema() AND hypertable_name = 'metrics' AND column_name = 'time'`,
    [chunk],
  );
  if (dimension) {
    if (dimension.differs) {
      report.warn(
        `metrics keeps its chunk interval of ${dimension.chunk_interval}; METRICS_CHUNK_INTERVAL is ${chunk}. ` +
          `To use it for new chunks run SELECT set_chunk_time_interval('metrics', INTERVAL '${chunk}');`,
      );
    }
    return { hypertable: true, converted: false };
  }

  const [size] = await query<{ bytes: string }>(knex, `SELECT pg_total_relation_size('metrics')::text AS bytes`);
  const bytes = Number(size?.bytes ?? 0);
  if (bytes > retention.maxMigrateBytes) {
    report.warn(
      `metrics is ${bytes} bytes, larger than METRICS_MAX_MIGRATE_BYTES (${retention.maxMigrateBytes}): ` +
        'not converted to a hypertable, so there is no compression, no rollups and no retention. ' +
        'See README "emergency reclaim", or raise METRICS_MAX_MIGRATE_BYTES and restart.',
    );
    return { hypertable: false, refusedBytes: bytes };
  }
  const [rows] = await query<{ any: boolean }>(knex, 'SELECT EXISTS (SELECT 1 FROM metrics) AS any');
  if (rows?.any) report.info(`Converting metrics (${bytes} bytes) to a hypertable; this can take minutes`);
  await query(
    knex,
    `SELECT create_hypertable('metrics', 'time', chunk_time_interval => ?::interval,
                              if_not_exists => true, migrate_data => true)`,
    [chunk],
  );
  report.info(`metrics is now a hypertable (chunk interval ${chunk})`);
  return { hypertable: true, converted: true };
}

/**
 * Segments by series so a chart query decompresses only its own series; ordered like the dedupe
 * index, whose columns must all be segment-by or order-by columns for compression to be allowed.
 */
export async function ensureCompressionSettings({ knex }: StepContext): Promise<void> {
  const [state] = await query<{ compression_enabled: boolean }>(
    knex,
    `SELECT compression_enabled FROM timescaledb_information.hypertables
      WHERE hypertable_schema = current_schema() AND hypertable_name = 'metrics'`,
  );
  // settings cannot change once chunks are compressed: set them only the first time
  if (state?.compression_enabled) return;
  await knex.raw(
    `ALTER TABLE metrics SET (timescaledb.compress,
       timescaledb.compress_segmentby = 'system_id, name',
       timescaledb.compress_orderby = 'instance, time DESC')`,
  );
}
