/** The embedded WASM TimescaleDB used by the tests and the demo. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pg from 'pg';
import { pino } from 'pino';
import { createKnex } from './connection.js';
import { startEmbeddedTimescale, type EmbeddedDb } from './embedded.js';

interface LogLine {
  level: number;
  msg: string;
}

async function rows<T>(knex: Knex, sql: string): Promise<T[]> {
  return ((await knex.raw(sql)) as { rows: T[] }).rows;
}

function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  void promise.finally(() => {
    done = true;
  });
  return () => done;
}

describe('startEmbeddedTimescale', () => {
  const lines: LogLine[] = [];
  let embedded: EmbeddedDb;
  let knex: Knex;

  before(async () => {
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    embedded = await startEmbeddedTimescale({ log });
    knex = createKnex({ url: embedded.url, poolMax: 1 });
  });

  after(async () => {
    await knex?.destroy();
    await embedded?.close();
  });

  test('serves TimescaleDB on a free local port', async () => {
    assert.match(embedded.url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    assert.ok(embedded.port > 0);
    const [extension] = await rows<{ extversion: string }>(
      knex,
      `SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'`,
    );
    assert.ok(extension?.extversion, 'the extension is created at start');
  });

  test('runs each scheduled job once, then only when its schedule comes round again', async () => {
    await knex.raw(`CREATE TABLE samples (time timestamptz NOT NULL, value double precision)`);
    await knex.raw(`SELECT create_hypertable('samples', 'time', chunk_time_interval => INTERVAL '1 day')`);
    await knex.raw(`INSERT INTO samples SELECT now() - make_interval(days => d), d FROM generate_series(0, 9) d`);
    await knex.raw(`SELECT add_retention_policy('samples', INTERVAL '5 days')`);
    const [scheduled] = await rows<{ n: string }>(
      knex,
      'SELECT count(*) AS n FROM timescaledb_information.jobs WHERE scheduled',
    );

    assert.equal(await embedded.runDueJobs(), Number(scheduled?.n));
    const [left] = await rows<{ oldest: number }>(knex, 'SELECT max(value) AS oldest FROM samples');
    assert.ok((left?.oldest ?? 99) <= 5, 'the retention job dropped the old chunks');
    assert.equal(await embedded.runDueJobs(), 0, 'nothing is due right after a run');
    const stats = await rows<{ status: string; success: Date | null; next: Date | null }>(
      knex,
      `SELECT s.last_run_status AS status, nullif(s.last_successful_finish, '-infinity') AS success,
              nullif(s.next_start, '-infinity') AS next
         FROM timescaledb_information.jobs j JOIN timescaledb_information.job_stats s USING (job_id)
        WHERE j.hypertable_name = 'samples'`,
    );
    assert.ok(stats.length > 0, 'the run is in job_stats, as the background worker would record it');
    for (const stat of stats) {
      assert.equal(stat.status, 'Success');
      assert.ok(stat.success && Date.now() - new Date(stat.success).getTime() < 60_000, 'last success is now');
      assert.ok(stat.next && new Date(stat.next).getTime() > Date.now(), 'the next run is ahead');
    }
    await knex.raw('DROP TABLE samples');
  });

  test('reports a failing job instead of throwing, and still runs the others', async () => {
    await knex.raw(`CREATE PROCEDURE failing_job(job_id int, config jsonb) LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'disk on fire'; END $$`);
    const [job] = await rows<{ id: number }>(knex, `SELECT add_job('failing_job', INTERVAL '1 hour') AS id`);
    await knex.raw(`CREATE TABLE other (time timestamptz NOT NULL)`);
    await knex.raw(`SELECT create_hypertable('other', 'time')`);
    await knex.raw(`SELECT add_retention_policy('other', INTERVAL '1 day')`);

    assert.equal(await embedded.runDueJobs(), 1, 'the retention job ran, the failing one is not counted');
    const warning = lines.find((line) => line.level === 40 && line.msg.includes(`job ${job?.id} failed`));
    assert.match(warning?.msg ?? '', /disk on fire/);
    const [stat] = await rows<{ status: string }>(
      knex,
      `SELECT last_run_status AS status FROM timescaledb_information.job_stats WHERE job_id = ${Number(job?.id)}`,
    );
    assert.equal(stat?.status, 'Failed', 'the failed run is recorded as failed');
    await knex.raw(`SELECT delete_job(${Number(job?.id)})`);
    await knex.raw('DROP TABLE other');
    await knex.raw('DROP PROCEDURE failing_job');
  });

  test('runs jobs between the transactions of a connected client, never inside one', async () => {
    await knex.raw(`CREATE TABLE queued (time timestamptz NOT NULL)`);
    await knex.raw(`SELECT create_hypertable('queued', 'time')`);
    await knex.raw(`SELECT add_retention_policy('queued', INTERVAL '1 day')`);
    const trx = await knex.transaction();
    await trx.raw('SELECT 1');
    const jobsDone = settled(embedded.runDueJobs());
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(jobsDone(), false, 'waits while the transaction is open');
    await trx.commit();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(jobsDone(), true, 'runs once the client is idle, though still connected');
    await knex.raw('DROP TABLE queued');
  });

  test('serves a second pooled connection without stalling', async () => {
    const pool = createKnex({ url: embedded.url, poolMax: 3 });
    try {
      const started = Date.now();
      const answers = await Promise.all(
        [1, 2, 3, 4].map(async (n) => {
          const [row] = await rows<{ n: number }>(pool, `SELECT ${n} AS n, pg_sleep(0.05)`);
          return row?.n;
        }),
      );
      assert.deepEqual(answers, [1, 2, 3, 4]);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    } finally {
      await pool.destroy();
    }
  });

  test('rolls back the transaction of a client that disconnects inside it', async () => {
    const client = new pg.Client({ connectionString: embedded.url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN');
    await client.query('CREATE TABLE abandoned (id int)');
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [found] = await rows<{ name: string | null }>(knex, `SELECT to_regclass('abandoned')::text AS name`);
    assert.equal(found?.name, null);
  });
});

describe('startEmbeddedTimescale with a data directory', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'argus-pgdata-'));
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('keeps tables, rows and hypertables across a restart', async () => {
    const first = await startEmbeddedTimescale({ dataDir, log: pino({ level: 'silent' }) });
    const writer = createKnex({ url: first.url, poolMax: 1 });
    try {
      await writer.raw('CREATE TABLE kept (time timestamptz NOT NULL, note text)');
      await writer.raw(`SELECT create_hypertable('kept', 'time')`);
      await writer.raw(`INSERT INTO kept VALUES ('2026-01-01T00:00:00Z', 'still here')`);
      await writer.raw(`SELECT add_retention_policy('kept', INTERVAL '100 years')`);
    } finally {
      await writer.destroy();
      await first.close();
    }

    const second = await startEmbeddedTimescale({ dataDir, log: pino({ level: 'silent' }) });
    const reader = createKnex({ url: second.url, poolMax: 1 });
    try {
      assert.deepEqual(await rows(reader, 'SELECT note FROM kept'), [{ note: 'still here' }]);
      const hypertables = await rows(
        reader,
        `SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = 'kept'`,
      );
      assert.equal(hypertables.length, 1);
      // a reopened data directory must still run jobs (the extension's library is loaded at start)
      assert.ok((await second.runDueJobs()) >= 1, 'the retention job ran after the restart');
    } finally {
      await reader.destroy();
      await second.close();
    }
  });
});
