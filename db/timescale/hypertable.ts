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
 * One compressed segment per system and series set, ordered by time: a chart query decompresses
 * only its system's rows, and each segment holds reports of the same series, whose arrays compress
 * alike (docs/decisions.md "One row per report"). The dedupe index's columns (system_id, time) are
 * segment-by and order-by columns, as compression requires.
 */
export const COMPRESS_SEGMENTBY = ['system_id', 'set_id'];
export const COMPRESS_ORDERBY = 'time DESC';

const COMPRESSION_SQL = `ALTER TABLE metrics SET (timescaledb.compress,
       timescaledb.compress_segmentby = '${COMPRESS_SEGMENTBY.join(', ')}',
       timescaledb.compress_orderby = '${COMPRESS_ORDERBY}')`;

/**
 * Enables compression with those settings, or moves an installation made with older ones to them:
 * chunks compressed from then on use the new settings, chunks compressed before keep theirs (each
 * chunk records its own; TimescaleDB 2.23 and 2.28 both accept the change with compressed chunks
 * present, tested).
 */
export async function ensureCompressionSettings({ knex, report }: StepContext): Promise<void> {
  const [state] = await query<{ compression_enabled: boolean }>(
    knex,
    `SELECT compression_enabled FROM timescaledb_information.hypertables
      WHERE hypertable_schema = current_schema() AND hypertable_name = 'metrics'`,
  );
  if (!state?.compression_enabled) {
    await knex.raw(COMPRESSION_SQL);
    return;
  }
  const { segmentBy, orderBy } = await compressionSettings(knex, null, 'metrics');
  if (segmentBy === COMPRESS_SEGMENTBY.join(', ') && orderBy === COMPRESS_ORDERBY) return;
  await knex.raw(COMPRESSION_SQL);
  report.info(
    `metrics compression now segments by ${COMPRESS_SEGMENTBY.join(', ')} and orders by ${COMPRESS_ORDERBY} ` +
      `(was ${segmentBy} / ${orderBy}); chunks compressed before keep their settings`,
  );
}

/**
 * A hypertable's compression settings as ALTER … SET writes them (`a, b` and `c DESC`); `schema`
 * null: the current one.
 */
export async function compressionSettings(
  knex: StepContext['knex'],
  schema: string | null,
  hypertable: string,
): Promise<{ segmentBy: string; orderBy: string }> {
  const settings = await query<{
    attname: string;
    segmentby: number | null;
    orderby: number | null;
    asc: boolean | null;
  }>(
    knex,
    `SELECT attname, segmentby_column_index AS segmentby, orderby_column_index AS orderby, orderby_asc AS asc
       FROM timescaledb_information.compression_settings
      WHERE hypertable_schema = coalesce(?, current_schema()) AND hypertable_name = ?`,
    [schema, hypertable],
  );
  const segmentBy = settings
    .filter((s) => s.segmentby !== null)
    .sort((a, b) => (a.segmentby ?? 0) - (b.segmentby ?? 0))
    .map((s) => s.attname)
    .join(', ');
  const orderBy = settings
    .filter((s) => s.orderby !== null)
    .sort((a, b) => (a.orderby ?? 0) - (b.orderby ?? 0))
    .map((s) => `${s.attname}${s.asc ? '' : ' DESC'}`)
    .join(', ');
  return { segmentBy, orderBy };
}
