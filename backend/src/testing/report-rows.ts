/** What the real-extension tests share: a private cluster, charts through the service, policy jobs. */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createKnex } from '../../../db/connection.js';
import { loadRetentionConfig } from '../../../db/environment.js';
import { MIGRATIONS_DIR, runMigrations } from '../../../db/migrate.js';
import { setupTimescale } from '../../../db/timescale.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { createMemoryBus } from '../bus/memory-bus.js';
import type { Principal } from '../lib/access.js';
import { FakeClock } from '../lib/clock.js';
import { createSystemsRepo } from '../systems/repo.js';
import { createScriptChecksReader } from '../systems/script-checks-repo.js';
import { createContainerImagesReader } from '../systems/container-images-repo.js';
import { createSystemsService } from '../systems/service.js';
import { createDatabase, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

const SILENT = pino({ level: 'silent' });

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

export async function rowsOf<T>(knex: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<T[]> {
  return ((await knex.raw(sql, bindings)) as { rows: T[] }).rows;
}

/** The policy jobs' ids, of one relation or of all. */
export async function jobIds(knex: Knex, relation?: string): Promise<number[]> {
  const jobs = await rowsOf<{ job_id: number }>(
    knex,
    `SELECT job_id FROM timescaledb_information.jobs
      WHERE proc_name LIKE 'policy_%' AND (?::text IS NULL OR hypertable_name = ?) ORDER BY job_id`,
    [relation ?? null, relation ?? null],
  );
  return jobs.map((job) => job.job_id);
}

export interface Chart {
  source: string;
  points: number[][];
}

/** A system's chart of one series over the `rangeMs` before `now`, as the API answers it. */
export async function chartsOf(
  knex: Knex,
  systemId: number,
  now: Date,
): Promise<(name: string, instance: string, rangeMs: number) => Promise<Chart>> {
  const admin = { userId: 1, role: 'ADMIN', customerIds: new Set() } as unknown as Principal;
  const clock = new FakeClock(now);
  const service = createSystemsService({
    repo: createSystemsRepo(knex),
    scriptChecks: createScriptChecksReader(knex),
    containerImages: createContainerImagesReader(knex),
    bus: createMemoryBus(),
    clock,
    audit: createAuditService({ repo: createAuditRepo(knex), clock }),
  });
  return async (name, instance, rangeMs) =>
    (await service.metrics(admin, {
      systemId,
      name,
      instance,
      from: new Date(now.getTime() - rangeMs),
      to: now,
    })) satisfies Chart;
}

/** Runs the refresh policy of a rollup now, as the scheduler would. */
export async function refreshNow(knex: Knex, view: string): Promise<void> {
  const [job] = await rowsOf<{ job_id: number }>(
    knex,
    `SELECT job_id FROM timescaledb_information.jobs
      WHERE proc_name = 'policy_refresh_continuous_aggregate' AND hypertable_name = ?`,
    [view],
  );
  if (!job) throw new Error(`no refresh policy on ${view}`);
  await knex.raw('CALL run_job(?)', [job.job_id]);
}

export interface RealTimescale {
  cluster: PrivatePostgres;
  knex: Knex;
}

/** A private cluster with the real extension and an empty `argus` database, for the real-tier tests. */
export async function startRealTimescale(): Promise<RealTimescale> {
  const cluster = await startPrivatePostgres({ timescale: true });
  await createDatabase(cluster, 'argus');
  return { cluster, knex: createKnex({ url: cluster.url('argus'), poolMax: 2 }) };
}

export async function stopRealTimescale(real: RealTimescale | undefined): Promise<void> {
  await real?.knex.destroy();
  await real?.cluster.destroy();
}

/** Takes the given jobs off the background scheduler: from then on they run only when a test calls them. */
export async function unscheduleJobs(knex: Knex, ids: number[]): Promise<void> {
  for (const id of ids) await knex.raw('SELECT alter_job(?, scheduled => false)', [id]);
}

/** The schema and TimescaleDB set-up of the release before one row per report (one row per sample). */
export const PER_SAMPLE_RELEASE_STEP = `
  CREATE EXTENSION IF NOT EXISTS timescaledb;
  SELECT create_hypertable('metrics', 'time', chunk_time_interval => INTERVAL '1 day', migrate_data => true);
  ALTER TABLE metrics SET (timescaledb.compress, timescaledb.compress_segmentby = 'system_id, name, instance',
                           timescaledb.compress_orderby = 'time DESC');
  SELECT add_compression_policy('metrics', compress_after => INTERVAL '2 days');
  CREATE MATERIALIZED VIEW metrics_5m
  WITH (timescaledb.continuous, timescaledb.materialized_only = false, timescaledb.create_group_indexes = false) AS
  SELECT time_bucket(INTERVAL '5 minutes', time) AS bucket, system_id, name, instance,
         avg(value) AS avg, min(value) AS min, max(value) AS max, count(*) AS count
    FROM metrics GROUP BY bucket, system_id, name, instance WITH NO DATA;
  CREATE MATERIALIZED VIEW metrics_1h
  WITH (timescaledb.continuous, timescaledb.materialized_only = false, timescaledb.create_group_indexes = false) AS
  SELECT time_bucket(INTERVAL '1 hour', time) AS bucket, system_id, name, instance,
         avg(value) AS avg, min(value) AS min, max(value) AS max, count(*) AS count
    FROM metrics GROUP BY bucket, system_id, name, instance WITH NO DATA;
  CREATE INDEX metrics_5m_series_idx ON metrics_5m (system_id, name, instance, bucket);
  CREATE INDEX metrics_1h_series_idx ON metrics_1h (system_id, name, instance, bucket);
  SELECT add_continuous_aggregate_policy('metrics_5m', start_offset => INTERVAL '6 days 23:55:00',
         end_offset => INTERVAL '5 minutes', schedule_interval => INTERVAL '5 minutes');
  SELECT add_continuous_aggregate_policy('metrics_1h', start_offset => INTERVAL '6 days 23:00:00',
         end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '1 hour');
  SELECT add_retention_policy('metrics', drop_after => INTERVAL '7 days');
  SELECT add_retention_policy('metrics_5m', drop_after => INTERVAL '30 days');
  SELECT add_retention_policy('metrics_1h', drop_after => INTERVAL '400 days');`;

/** A migrations directory of that release: every migration before one row per report (0022). */
export async function perSampleReleaseMigrations(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'argus-migrations-'));
  for (const file of await readdir(MIGRATIONS_DIR)) {
    if (/^\d{4}_/.test(file) && file < '0022') await symlink(path.join(MIGRATIONS_DIR, file), path.join(dir, file));
  }
  return dir;
}

/** A customer and one system of it, by their names: the system's id. */
export async function insertSystem(knex: Knex, customerName: string, systemName: string): Promise<number> {
  const [customer] = await knex('customers').insert({ name: customerName }).returning('id');
  const [system] = await knex('systems')
    .insert({ customer_id: (customer as { id: number }).id, name: systemName })
    .returning('id');
  return (system as { id: number }).id;
}

/**
 * A private cluster on the real extension, migrated and set up as at start-up, its policies taken off
 * the scheduler: from then on they run only when a test calls them.
 */
export async function startSetUpRealTimescale(): Promise<RealTimescale> {
  const real = await startRealTimescale();
  try {
    await runMigrations(real.knex);
    const outcome = await setupTimescale(real.knex, loadRetentionConfig({}), SILENT);
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    await unscheduleJobs(real.knex, await jobIds(real.knex));
    return real;
  } catch (error) {
    await stopRealTimescale(real);
    throw error;
  }
}

export interface PerSampleRelease extends RealTimescale {
  /** The release's migrations directory (removed by stopPerSampleRelease). */
  migrations: string;
  /** The system `old-01` of the customer `Old`. */
  systemId: number;
}

/**
 * A private cluster on the real extension as the release before one row per report left it: its
 * migrations and TimescaleDB step, its policy jobs off the scheduler, one system and no samples yet.
 */
export async function startPerSampleRelease(): Promise<PerSampleRelease> {
  const real = await startRealTimescale();
  const migrations = await perSampleReleaseMigrations();
  try {
    const { knex } = real;
    await runMigrations(knex, migrations);
    await knex.raw(PER_SAMPLE_RELEASE_STEP);
    const jobs = await rowsOf<{ job_id: number }>(
      knex,
      'SELECT job_id FROM timescaledb_information.jobs WHERE job_id >= 1000',
    );
    await unscheduleJobs(
      knex,
      jobs.map((job) => job.job_id),
    );
    return { ...real, migrations, systemId: await insertSystem(knex, 'Old', 'old-01') };
  } catch (error) {
    await stopPerSampleRelease({ ...real, migrations, systemId: 0 });
    throw error;
  }
}

export async function stopPerSampleRelease(release: PerSampleRelease | undefined): Promise<void> {
  await stopRealTimescale(release);
  if (release) await rm(release.migrations, { recursive: true, force: true });
}

/**
 * The per-sample rows as that release's policies would have left them at `now`: both rollups
 * refreshed, raw chunks older than `dropRawOlderThan` dropped (when given), those older than two days
 * compressed.
 */
export async function settlePerSampleRows(knex: Knex, now: Date, dropRawOlderThan?: string): Promise<void> {
  for (const view of ['metrics_5m', 'metrics_1h'])
    await knex.raw('CALL refresh_continuous_aggregate(?::regclass, NULL, ?::timestamptz)', [view, now]);
  if (dropRawOlderThan) await knex.raw("SELECT drop_chunks('metrics', older_than => ?::interval)", [dropRawOlderThan]);
  await knex.raw("SELECT compress_chunk(c) FROM show_chunks('metrics', older_than => INTERVAL '2 days') c");
}
