/**
 * ops/db-usage.sql through psql: on the plain PostgreSQL of the test machine (no TimescaleDB) and on
 * the WASM TimescaleDB after the start-up step made metrics a hypertable. Both sessions are opened
 * read-only (default_transaction_read_only), so a report that tried to write would fail.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadRetentionConfig } from '../../backend/src/config.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { createKnex } from '../../db/connection.js';
import { startEmbeddedTimescale, type EmbeddedDb } from '../../db/embedded.js';
import { runMigrations } from '../../db/migrate.js';
import { setupTimescale } from '../../db/timescale.js';
import { REPO_ROOT, runTool, toolEnv } from './support.js';

const REPORT = path.join(REPO_ROOT, 'ops/db-usage.sql');

/** psql as an operator runs it, in a session that refuses every write. */
function report(url: string) {
  return runTool('psql', ['-X', '-w', url, '-f', REPORT], {
    // PGlite asks for a password it does not check; the test PostgreSQL trusts loopback
    env: toolEnv({ PGPASSWORD: 'unused', PGOPTIONS: '-c default_transaction_read_only=on' }),
  });
}

/** The table psql prints under an `== title` line: its header row and its first data row. */
function section(output: string, title: string): { header: string; first: string } {
  const at = output.indexOf(`== ${title}`);
  assert.ok(at >= 0, `the report has a "${title}" section:\n${output}`);
  const lines = output.slice(at).split('\n');
  return { header: lines[1] ?? '', first: lines[3] ?? '' };
}

async function insertSamples(knex: Knex, days: number): Promise<void> {
  await knex.raw(
    `INSERT INTO metrics (time, system_id, set_id, vals)
     SELECT t, s, metric_series_set_id(ARRAY['cpu.usage_pct'], ARRAY['']), ARRAY[s]::real[]
       FROM generate_series(now() - make_interval(days => ?), now(), INTERVAL '1 minute') AS t,
            generate_series(1, 3) AS s`,
    [days],
  );
}

describe('ops/db-usage.sql on plain PostgreSQL', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await insertSamples(db.knex, 2);
    await db.knex.raw('ANALYZE metrics');
  });
  after(async () => {
    await db?.drop();
  });

  test('reports a plain table, skips the TimescaleDB parts and lists the largest relations', async () => {
    const result = await report(db.url);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.doesNotMatch(result.stderr, /ERROR/);
    const { stdout } = result;
    assert.match(section(stdout, 'metrics').first, /plain table\s+\|\s+not installed/);
    const plain = section(stdout, 'plain metrics table');
    assert.match(plain.header, /table_size.*index_size.*total_size.*rows_estimate/);
    assert.match(plain.first, /\|\s+8643\s*$/, 'the row estimate after ANALYZE: 3 systems x 2 days of minutes');
    assert.match(section(stdout, 'series sets').first, /^\s*1\s+\|\s+1\s+\|/, 'one series set of one series');
    assert.match(stdout, /metrics_dedupe_idx/);
    assert.match(stdout, /TimescaleDB is not installed: no hypertable, compression, rollups or policies/);
    assert.doesNotMatch(stdout, /== chunks|== compression|== policies/);
    const largest = stdout.slice(stdout.indexOf('== 20 largest relations'));
    assert.match(largest.split('\n')[3] ?? '', /^\s*public\s+\|\s+metrics\s+\|\s+table\s+\|/, 'metrics is the largest');
    const rows = largest.split('\n').filter((line) => /^\s*\w+\s+\|\s+\w+\s+\|\s+(table|materialized view)/.test(line));
    assert.equal(rows.length, 20);
  });
});

describe('ops/db-usage.sql on TimescaleDB (WASM)', () => {
  let embedded: EmbeddedDb;
  before(async () => {
    embedded = await startEmbeddedTimescale({ log: pino({ level: 'silent' }) });
    const knex = createKnex({ url: embedded.url, poolMax: 1 });
    try {
      await runMigrations(knex);
      const outcome = await setupTimescale(knex, loadRetentionConfig({}), pino({ level: 'silent' }));
      assert.ok(outcome.hypertable, outcome.messages.join('\n'));
      await insertSamples(knex, 5);
      await knex.raw(`SELECT compress_chunk(c) FROM show_chunks('metrics', older_than => INTERVAL '3 days') AS c`);
    } finally {
      await knex.destroy();
    }
  });
  after(async () => {
    await embedded?.close();
  });

  test('reports the hypertable, its chunks, the compression ratio, rollups and policies', async () => {
    const result = await report(embedded.url);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.doesNotMatch(result.stderr, /ERROR/);
    const { stdout } = result;
    assert.match(section(stdout, 'metrics').first, /hypertable\s+\|\s+2\.\d+/);
    const chunks = section(stdout, 'chunks');
    assert.match(chunks.header, /chunks\s+\|\s+compressed/);
    const [chunkCount, compressed] = chunks.first.split('|').map((cell) => Number(cell.trim()));
    assert.ok(chunkCount! >= 5, `5 days in 1-day chunks: ${chunks.first}`);
    assert.ok(compressed! >= 2, `the chunks older than 3 days are compressed: ${chunks.first}`);
    const compression = section(stdout, 'compression');
    assert.match(compression.header, /ratio/);
    const ratio = Number(compression.first.split('|').at(-1));
    assert.ok(ratio > 1, `a compression ratio above 1: ${compression.first}`);
    assert.match(stdout, /metrics_1h\s+\|\s+f\s+\|/);
    assert.match(stdout, /metrics_5m\s+\|\s+f\s+\|/);
    const policies = stdout.slice(stdout.indexOf('== policies'));
    assert.match(section(stdout, 'policies (next run, last result)').header, /next_start/);
    for (const policy of [
      /policy_compression\s+\|\s+metrics\s+\|/,
      /policy_retention\s+\|\s+metrics\s+\|.*"drop_after": "7 days"/,
      /policy_retention\s+\|\s+metrics_5m\s+\|.*"drop_after": "30 days"/,
      /policy_retention\s+\|\s+metrics_1h\s+\|.*"drop_after": "400 days"/,
      /policy_refresh_continuous_aggregate\s+\|\s+metrics_5m\s+\|/,
      /policy_refresh_continuous_aggregate\s+\|\s+metrics_1h\s+\|/,
    ]) {
      assert.match(policies, policy);
    }
    assert.match(stdout, /== 20 largest relations[\s\S]*_timescaledb_internal\s+\|\s+_hyper_1_\d+_chunk/);
  });
});
