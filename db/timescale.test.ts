/**
 * The TimescaleDB step against TimescaleDB itself (WASM build, in memory, one instance for the file)
 * and against the plain PostgreSQL of the test machine. PGlite has a single database, so each test
 * works in a schema of its own (migrations applied there, found first on the search_path).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadRetentionConfig, type RetentionConfig } from './environment.js';
import { parseInterval } from './interval.js';
import type { Logger } from './logger.js';
import { createTestDatabase } from '../backend/src/testing/database.js';
import { createKnex } from './connection.js';
import { startEmbeddedTimescale, type EmbeddedDb } from './embedded.js';
import { runMigrations } from './migrate.js';
import { BACKFILL_MARKER, FAILURE_PREFIX, setupTimescale } from './timescale.js';

interface LogLine {
  level: number;
  msg: string;
}

function capturingLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

function retentionConfig(overrides: Partial<Record<keyof RetentionConfig, string | number>> = {}): RetentionConfig {
  const config = loadRetentionConfig({});
  for (const [key, value] of Object.entries(overrides)) {
    if (key === 'maxMigrateBytes') config.maxMigrateBytes = Number(value);
    else (config as unknown as Record<string, unknown>)[key] = parseInterval(String(value));
  }
  return config;
}

async function rows<T>(knex: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<T[]> {
  return ((await knex.raw(sql, bindings)) as { rows: T[] }).rows;
}

/** One report a minute of one series, from `fromAgo` to `toAgo` before now. */
async function insertSamples(knex: Knex, fromAgo: string, toAgo: string): Promise<void> {
  await knex.raw(
    `INSERT INTO metrics (time, system_id, set_id, vals)
     SELECT t, 1, metric_series_set_id(ARRAY['cpu'], ARRAY['']), ARRAY[extract(minute FROM t)]::real[]
       FROM generate_series(date_trunc('minute', now() - ?::interval), now() - ?::interval, INTERVAL '1 minute') AS t`,
    [fromAgo, toAgo],
  );
}

interface JobRow {
  job_id: number;
  proc_name: string;
  hypertable_name: string;
  config: Record<string, unknown>;
  schedule_interval: unknown;
}

function jobs(knex: Knex, schema: string): Promise<JobRow[]> {
  return rows<JobRow>(
    knex,
    `SELECT job_id, proc_name, hypertable_name, config, schedule_interval::text AS schedule_interval
       FROM timescaledb_information.jobs WHERE hypertable_schema = ? ORDER BY job_id`,
    [schema],
  );
}

describe('setupTimescale on TimescaleDB (WASM)', () => {
  let embedded: EmbeddedDb;
  let knex: Knex;
  let schemas = 0;

  before(async () => {
    embedded = await startEmbeddedTimescale({ log: pino({ level: 'silent' }) });
    knex = createKnex({ url: embedded.url, poolMax: 1 });
  });

  after(async () => {
    await knex?.destroy();
    await embedded?.close();
  });

  /** A schema of its own with every migration applied, first on the search path; dropped afterwards. */
  async function inFreshSchema(run: (schema: string) => Promise<void>, migrate = true): Promise<void> {
    const schema = `timescale_test_${++schemas}`;
    await knex.raw(`CREATE SCHEMA ${schema}`);
    await knex.raw(`SET search_path TO ${schema}, public`);
    try {
      if (migrate) await runMigrations(knex);
      await run(schema);
    } finally {
      await knex.raw('SET search_path TO public');
      await knex.raw(`DROP SCHEMA ${schema} CASCADE`);
    }
  }

  test('creates the hypertable, both real-time rollups and every policy', async () => {
    await inFreshSchema(async (schema) => {
      const { log, lines } = capturingLogger();
      const outcome = await setupTimescale(knex, retentionConfig(), log);

      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      assert.deepEqual(outcome.createdRollups, ['metrics_5m', 'metrics_1h']);
      assert.ok(!lines.some((line) => line.level >= 40), 'no warning or error on a clean run');
      const [table] = await rows<{ compression_enabled: boolean; chunk: string }>(
        knex,
        `SELECT h.compression_enabled, d.time_interval::text AS chunk
           FROM timescaledb_information.hypertables h
           JOIN timescaledb_information.dimensions d USING (hypertable_schema, hypertable_name)
          WHERE h.hypertable_schema = ? AND h.hypertable_name = 'metrics'`,
        [schema],
      );
      assert.deepEqual(table, { compression_enabled: true, chunk: '1 day' });
      const rollups = await rows<{ view_name: string; materialized_only: boolean }>(
        knex,
        `SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates
          WHERE view_schema = ? ORDER BY view_name`,
        [schema],
      );
      assert.deepEqual(rollups, [
        { view_name: 'metrics_1h', materialized_only: false },
        { view_name: 'metrics_5m', materialized_only: false },
      ]);
      const policies = (await jobs(knex, schema))
        .map(({ proc_name, hypertable_name, config }) => {
          const { hypertable_id: _table, mat_hypertable_id: _rollup, ...settings } = config;
          return `${proc_name} ${hypertable_name} ${JSON.stringify(settings)}`;
        })
        .sort();
      assert.deepEqual(policies, [
        'policy_compression metrics {"compress_after":"2 days"}',
        'policy_compression metrics_1h {"compress_after":"7 days 23:00:00"}',
        'policy_compression metrics_5m {"compress_after":"2 days"}',
        'policy_refresh_continuous_aggregate metrics_1h {"end_offset":"01:00:00","start_offset":"6 days 23:00:00"}',
        'policy_refresh_continuous_aggregate metrics_5m {"end_offset":"00:05:00","start_offset":"6 days 23:55:00"}',
        'policy_retention metrics {"drop_after":"7 days"}',
        'policy_retention metrics_1h {"drop_after":"400 days"}',
        'policy_retention metrics_5m {"drop_after":"30 days"}',
      ]);
      const indexes = await rows<{ indexname: string }>(
        knex,
        `SELECT indexname FROM pg_indexes WHERE indexname IN ('metrics_5m_system_idx', 'metrics_1h_system_idx')`,
      );
      assert.equal(indexes.length, 2);
    });
  });

  test('is idempotent: a second run changes nothing and says nothing alarming', async () => {
    await inFreshSchema(async (schema) => {
      await insertSamples(knex, '3 hours', '1 minute');
      const first = await setupTimescale(knex, retentionConfig(), capturingLogger().log);
      assert.equal(first.ok, true, first.messages.join('\n'));
      assert.equal(first.backfilled, true);
      const before = await snapshot(knex, schema);

      const { log, lines } = capturingLogger();
      const second = await setupTimescale(knex, retentionConfig(), log);
      assert.equal(second.ok, true, second.messages.join('\n'));
      assert.deepEqual(second.createdRollups, []);
      assert.equal(second.backfilled, false, 'the one-time backfill does not run again');
      assert.ok(!lines.some((line) => line.level >= 40), lines.map((line) => line.msg).join('\n'));
      assert.deepEqual(await snapshot(knex, schema), before);
    });
  });

  test('keeps an existing policy when a variable changes, and says how to replace it', async () => {
    await inFreshSchema(async (schema) => {
      await setupTimescale(knex, retentionConfig(), capturingLogger().log);
      const before = await jobs(knex, schema);

      const { log, lines } = capturingLogger();
      const changed = retentionConfig({
        rawRetention: '14 days',
        compressAfter: '3 days',
        rollup1hRetention: '2 years',
      });
      const outcome = await setupTimescale(knex, changed, log);

      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      assert.deepEqual(await jobs(knex, schema), before, 'no policy was rewritten');
      const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
      const retention = warnings.find((msg) => msg.includes('retention policy of metrics '));
      assert.match(retention ?? '', /drop_after 7 days \(configured: 14 days\)/);
      assert.match(retention ?? '', /SELECT remove_retention_policy\('metrics'\);/);
      assert.ok(warnings.some((msg) => msg.includes("remove_retention_policy('metrics_1h')")));
      assert.ok(warnings.some((msg) => msg.includes("remove_compression_policy('metrics')")));
      assert.ok(warnings.some((msg) => msg.includes("remove_continuous_aggregate_policy('metrics_5m')")));
    });
  });

  test('refuses to convert a plain metrics table larger than METRICS_MAX_MIGRATE_BYTES', async () => {
    await inFreshSchema(async (schema) => {
      await insertSamples(knex, '1 day', '1 minute');
      const { log, lines } = capturingLogger();
      const outcome = await setupTimescale(knex, retentionConfig({ maxMigrateBytes: 16_384 }), log);

      assert.equal(outcome.ok, false);
      assert.equal(outcome.hypertable, false);
      assert.ok((outcome.refusedBytes ?? 0) > 16_384);
      const warning = lines.find((line) => line.level === 40)?.msg ?? '';
      assert.match(warning, /^metrics is \d+ bytes, larger than METRICS_MAX_MIGRATE_BYTES \(16384\): not converted/);
      assert.match(warning, /emergency reclaim/);
      const converted = await rows(
        knex,
        'SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_schema = ?',
        [schema],
      );
      assert.equal(converted.length, 0, 'metrics stays a plain table');
      assert.equal((await jobs(knex, schema)).length, 0, 'no policy on a table that is not a hypertable');
      const [count] = await rows<{ n: string }>(knex, 'SELECT count(*) AS n FROM metrics');
      assert.equal(Number(count?.n), 24 * 60);
    });
  });

  test('converts a plain table within the limit, backfilling the rollups before any retention', async () => {
    await inFreshSchema(async () => {
      // ten days of history with a raw retention of 7 days: metrics_1h must receive all of it
      await insertSamples(knex, '10 days', '1 minute');
      const outcome = await setupTimescale(knex, retentionConfig(), capturingLogger().log);

      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      assert.equal(outcome.backfilled, true);
      const [hourly] = await rows<{ samples: string }>(
        knex,
        `SELECT sum(count) AS samples FROM metrics_1h WHERE bucket < now() - INTERVAL '8 days'`,
      );
      assert.ok(Number(hourly?.samples) >= 24 * 60, 'the oldest raw days reached metrics_1h');
      const [marker] = await rows(knex, 'SELECT 1 FROM app_settings WHERE key = ?', [BACKFILL_MARKER]);
      assert.ok(marker, 'the backfill marker is set');
    });
  });

  test('keeps 5-minute and hourly rows after raw chunks are dropped and the refresh policies run', async () => {
    await inFreshSchema(async (schema) => {
      await insertSamples(knex, '4 days', '1 minute');
      const retention = retentionConfig({ rawRetention: '2 days', compressAfter: '1 day' });
      const outcome = await setupTimescale(knex, retention, capturingLogger().log);
      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      const old = `WHERE bucket < now() - INTERVAL '3 days'`;
      const before5m = await rows(knex, `SELECT bucket, count, avgs FROM metrics_5m ${old} ORDER BY bucket`);
      const before1h = await rows(knex, `SELECT bucket, count, avgs FROM metrics_1h ${old} ORDER BY bucket`);
      assert.ok(before5m.length >= 12 * 23 && before1h.length >= 23, 'the backfill materialized the old day');

      assert.ok((await embedded.runDueJobs()) >= 6, 'refresh, compression and retention jobs ran');
      const [oldRaw] = await rows<{ n: string }>(
        knex,
        `SELECT count(*) AS n FROM metrics WHERE time < now() - INTERVAL '3 days'`,
      );
      assert.equal(Number(oldRaw?.n), 0, 'the retention policy dropped the old raw chunks');
      for (const job of (await jobs(knex, schema)).filter(
        (j) => j.proc_name === 'policy_refresh_continuous_aggregate',
      )) {
        await knex.raw(`CALL run_job(${job.job_id})`);
      }

      assert.deepEqual(await rows(knex, `SELECT bucket, count, avgs FROM metrics_5m ${old} ORDER BY bucket`), before5m);
      assert.deepEqual(await rows(knex, `SELECT bucket, count, avgs FROM metrics_1h ${old} ORDER BY bucket`), before1h);
      // control: a refresh reaching over the dropped chunks would have deleted them
      await knex.raw(
        `CALL refresh_continuous_aggregate('metrics_5m', now() - INTERVAL '5 days', now() - INTERVAL '1 day')`,
      );
      assert.equal((await rows(knex, `SELECT 1 FROM metrics_5m ${old}`)).length, 0);
    });
  });

  test('skips a refresh policy whose window would not fit in a very short raw retention', async () => {
    await inFreshSchema(async (schema) => {
      const { log, lines } = capturingLogger();
      const outcome = await setupTimescale(knex, retentionConfig({ rawRetention: '2 hours' }), log);

      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      const refreshed = (await jobs(knex, schema))
        .filter((job) => job.proc_name === 'policy_refresh_continuous_aggregate')
        .map((job) => [job.hypertable_name, job.config['start_offset']]);
      assert.deepEqual(refreshed, [['metrics_5m', '01:55:00']]);
      const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /^No refresh policy for metrics_1h: METRICS_RAW_RETENTION \(2 hours\)/);
    });
  });

  test('logs one failure line and does not throw when a part fails', async () => {
    await inFreshSchema(async () => {
      // no migrations in this schema: there is no metrics table to convert
      const { log, lines } = capturingLogger();
      const outcome = await setupTimescale(knex, retentionConfig(), log);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.extension, true);
      const errors = lines.filter((line) => line.level === 50).map((line) => line.msg);
      assert.equal(errors.length, 1);
      assert.ok(errors[0]?.startsWith(FAILURE_PREFIX), errors[0]);
      assert.match(errors[0] ?? '', /relation "metrics" does not exist/);
    }, false);
  });
});

describe('setupTimescale on plain PostgreSQL', () => {
  test('is non-fatal: logs the failure line and reports ok false', async () => {
    const database = await createTestDatabase();
    try {
      const { log, lines } = capturingLogger();
      const outcome = await setupTimescale(database.knex, retentionConfig(), log);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.extension, false);
      // the shared server may have TimescaleDB's files (prepare-machine installs the vendored build for
      // private clusters) without loading them: the message says which of the two it is
      const available = (await database.knex.raw(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'",
      )) as { rows: unknown[] };
      const why =
        available.rows.length > 0
          ? 'the timescaledb extension is installed on this PostgreSQL server but not loaded: add timescaledb ' +
            'to shared_preload_libraries and restart PostgreSQL'
          : 'the timescaledb extension is not available on this PostgreSQL server';
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg]),
        [[50, `TimescaleDB setup failed (app will still start): ${why}`]],
      );
      const [plain] = await rows<{ relkind: string }>(
        database.knex,
        `SELECT relkind FROM pg_class WHERE relname = 'metrics'`,
      );
      assert.equal(plain?.relkind, 'r', 'metrics is untouched');
    } finally {
      await database.drop();
    }
  });
});

async function snapshot(knex: Knex, schema: string): Promise<unknown> {
  return {
    hypertables: await rows(
      knex,
      `SELECT hypertable_name, compression_enabled, num_dimensions FROM timescaledb_information.hypertables
        WHERE hypertable_schema = ?`,
      [schema],
    ),
    rollups: await rows(
      knex,
      `SELECT view_name, materialized_only, materialization_hypertable_name, view_definition
         FROM timescaledb_information.continuous_aggregates WHERE view_schema = ? ORDER BY view_name`,
      [schema],
    ),
    jobs: await jobs(knex, schema),
    indexes: await rows(knex, `SELECT indexname, indexdef FROM pg_indexes ORDER BY indexname`),
    rollupRows: await rows(knex, 'SELECT bucket, count FROM metrics_5m ORDER BY bucket'),
  };
}
