/**
 * The TimescaleDB step on the real extension (docs/decisions.md "Storage on the real TimescaleDB"): TimescaleDB 2.28.3 preloaded in a private
 * PostgreSQL 15 cluster (the vendored build prepare-machine installs; without it the cluster refuses
 * to start and says what to install). What the step creates, its re-run, each policy run with
 * `CALL run_job` (the background scheduler's own runs fail on 15.20: housekeeping notices, see
 * storage-jobs.test.ts), and the chart API reading the right source at each range.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createHousekeepingRepo } from '../backend/src/housekeeping/repo.js';
import {
  chartsOf,
  insertSystem,
  startRealTimescale,
  stopRealTimescale,
  unscheduleJobs,
  type RealTimescale,
} from '../backend/src/testing/report-rows.js';
import { loadRetentionConfig } from './environment.js';
import { runMigrations } from './migrate.js';
import { setupTimescale } from './timescale.js';

const SILENT = pino({ level: 'silent' });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Job {
  job_id: number;
  proc_name: string;
  hypertable_name: string;
  config: Record<string, unknown>;
}

describe('the TimescaleDB step on the real extension', { timeout: 300_000 }, () => {
  let real: RealTimescale | undefined;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);

  const rows = async <T>(sql: string, bindings: Knex.RawBinding[] = []): Promise<T[]> =>
    ((await knex.raw(sql, bindings)) as { rows: T[] }).rows;
  const jobs = () =>
    rows<Job>(
      `SELECT job_id, proc_name, hypertable_name, config FROM timescaledb_information.jobs
        WHERE proc_name LIKE 'policy_%' ORDER BY hypertable_name, proc_name`,
    );
  const jobOf = async (procName: string, table: string) => {
    const job = (await jobs()).find((j) => j.proc_name === procName && j.hypertable_name === table);
    assert.ok(job, `a ${procName} job on ${table}`);
    return job;
  };
  const runJob = async (procName: string, table: string) =>
    knex.raw('CALL run_job(?)', [(await jobOf(procName, table)).job_id]);
  /** metrics' chunks: where each ends, and whether it is compressed. */
  const chunks = () =>
    rows<{ range_end: Date; is_compressed: boolean }>(
      `SELECT range_end, is_compressed FROM timescaledb_information.chunks
        WHERE hypertable_name = 'metrics' ORDER BY range_start`,
    );

  before(async () => {
    real = await startRealTimescale();
    knex = real.knex;
    await runMigrations(knex);
    systemId = await insertSystem(knex, 'Real', 'real-01');
  });
  after(() => stopRealTimescale(real));

  it('makes metrics a compressed hypertable with two rollups and five policies, and a re-run changes nothing', async () => {
    const first = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(first.ok, true, first.messages.join('\n'));
    const [version] = await rows<{ extversion: string }>(
      "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'",
    );
    assert.equal(version?.extversion, '2.28.3');

    const [hypertable] = await rows<{ compression_enabled: boolean }>(
      "SELECT compression_enabled FROM timescaledb_information.hypertables WHERE hypertable_name = 'metrics'",
    );
    assert.equal(hypertable?.compression_enabled, true);
    const [dimension] = await rows<{ time_interval: string }>(
      `SELECT time_interval::text FROM timescaledb_information.dimensions
        WHERE hypertable_name = 'metrics' AND column_name = 'time'`,
    );
    assert.equal(dimension?.time_interval, '1 day');
    const settings = await rows<{
      attname: string;
      segmentby_column_index: number | null;
      orderby_column_index: number | null;
      orderby_asc: boolean | null;
    }>(
      `SELECT attname, segmentby_column_index, orderby_column_index, orderby_asc
         FROM timescaledb_information.compression_settings WHERE hypertable_name = 'metrics'
        ORDER BY attname`,
    );
    assert.deepEqual(
      settings
        .filter((s) => s.segmentby_column_index !== null)
        .map((s) => s.attname)
        .sort(),
      ['set_id', 'system_id'],
    );
    assert.deepEqual(
      settings
        .filter((s) => s.orderby_column_index !== null)
        .sort((a, b) => (a.orderby_column_index ?? 0) - (b.orderby_column_index ?? 0))
        .map((s) => `${s.attname} ${s.orderby_asc ? 'ASC' : 'DESC'}`),
      ['time DESC'],
    );
    const aggregates = await rows<{ view_name: string }>(
      'SELECT view_name FROM timescaledb_information.continuous_aggregates ORDER BY view_name',
    );
    assert.deepEqual(
      aggregates.map((a) => a.view_name),
      ['metrics_1h', 'metrics_5m'],
    );
    const rollupChunks = await rows<{ view_name: string; time_interval: string }>(
      `SELECT a.view_name, d.time_interval::text FROM timescaledb_information.continuous_aggregates a
         JOIN timescaledb_information.dimensions d ON d.hypertable_name = a.materialization_hypertable_name
        ORDER BY a.view_name`,
    );
    const chunkWidths = rollupChunks.map((c) => `${c.view_name} ${c.time_interval}`);
    assert.deepEqual(chunkWidths, ['metrics_1h 10 days', 'metrics_5m 1 day'], 'metrics_5m compressed, dropped sooner');

    const before = await jobs();
    const byKind = before.map((j) => `${j.proc_name} ${j.hypertable_name}`).sort();
    assert.equal(byKind.filter((k) => k.startsWith('policy_compression')).length, 3, 'metrics and both rollups');
    assert.equal(byKind.filter((k) => k.startsWith('policy_retention')).length, 3);
    assert.equal(byKind.filter((k) => k.startsWith('policy_refresh_continuous_aggregate')).length, 2);
    assert.equal((await jobOf('policy_compression', 'metrics')).config['compress_after'], '2 days');
    assert.equal((await jobOf('policy_retention', 'metrics')).config['drop_after'], '7 days');

    const again = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(again.ok, true, again.messages.join('\n'));
    assert.deepEqual(await jobs(), before, 'the same jobs with the same configs');
  });

  it('compresses old chunks, drops expired ones and refreshes both rollups when each policy runs', async () => {
    // the background scheduler would race the run_job calls below: from here the jobs run only when
    // the test calls them
    await unscheduleJobs(
      knex,
      (await jobs()).map((job) => job.job_id),
    );
    // one sample a minute for 3 hours at 10 days, 3 days and 3 hours ago
    for (const agoHours of [240, 72, 3]) {
      await knex.raw(
        `INSERT INTO metric_samples (time, system_id, name, instance, value)
         SELECT t, ?, 'cpu.usage_pct', '', extract(minute FROM t)
           FROM generate_series(?::timestamptz, ?::timestamptz - INTERVAL '1 minute', INTERVAL '1 minute') t`,
        [systemId, new Date(now.getTime() - agoHours * HOUR), new Date(now.getTime() - (agoHours - 3) * HOUR)],
      );
    }
    assert.ok((await chunks()).every((c) => !c.is_compressed));

    await runJob('policy_compression', 'metrics');
    const compressOlderThan = now.getTime() - 2 * DAY;
    for (const chunk of await chunks()) {
      assert.equal(
        chunk.is_compressed,
        chunk.range_end.getTime() <= compressOlderThan,
        `chunk to ${chunk.range_end.toISOString()}`,
      );
    }
    assert.ok((await chunks()).some((c) => c.is_compressed));
    // the storage panel's figures follow
    const usage = await createHousekeepingRepo(knex).databaseUsage();
    assert.equal(usage.timescale, true);
    assert.equal(usage.compressedChunks, (await chunks()).filter((c) => c.is_compressed).length);
    assert.ok(usage.compression && usage.compression.afterBytes < usage.compression.beforeBytes, JSON.stringify(usage));

    await runJob('policy_retention', 'metrics');
    const left = await chunks();
    assert.ok(
      left.every((c) => c.range_end.getTime() > now.getTime() - 7 * DAY),
      'the 10-day-old chunk is gone',
    );
    const [oldest] = await rows<{ oldest: Date }>('SELECT min(time) AS oldest FROM metrics');
    assert.ok(oldest && oldest.oldest.getTime() >= now.getTime() - 73 * HOUR, `oldest ${oldest?.oldest.toISOString()}`);

    await runJob('policy_refresh_continuous_aggregate', 'metrics_5m');
    await runJob('policy_refresh_continuous_aggregate', 'metrics_1h');
    // the materialised rows themselves (the views add the newest raw data in real time)
    const materialised = async (view: string) => {
      const [table] = await rows<{ name: string }>(
        `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
           FROM timescaledb_information.continuous_aggregates WHERE view_name = ?`,
        [view],
      );
      assert.ok(table, view);
      return rows<{ buckets: string; avg: number }>(
        `SELECT count(*) AS buckets, avg(avgs[1]) AS avg FROM ${table.name} WHERE bucket >= ? AND bucket < ?`,
        [new Date(now.getTime() - 3 * HOUR), new Date(now.getTime() - HOUR)],
      );
    };
    const [fiveMinutes] = await materialised('metrics_5m');
    assert.equal(Number(fiveMinutes?.buckets), 24, 'two hours of 5-minute buckets');
    assert.equal(Math.round(Number(fiveMinutes?.avg) * 1000) / 1000, 29.5);
    const [hours] = await materialised('metrics_1h');
    assert.equal(Number(hours?.buckets), 2);
    assert.equal(Math.round(Number(hours?.avg) * 1000) / 1000, 29.5);
  });

  it('answers each chart range from the right source', async () => {
    const chart = await chartsOf(knex, systemId, now);
    const range = async (ms: number) => (await chart('cpu.usage_pct', '', ms)).source;
    assert.equal(await range(HOUR), 'raw');
    assert.equal(await range(2 * DAY), 'raw');
    assert.equal(await range(7 * DAY), '5m');
    assert.equal(await range(30 * DAY), '5m');
    assert.equal(await range(400 * DAY), '1h');
  });

  it('moves an installation compressed with other settings to the new ones; its compressed chunks stay readable', async () => {
    await knex.raw('TRUNCATE metrics');
    await knex.raw(
      `ALTER TABLE metrics SET (timescaledb.compress_segmentby = 'system_id', timescaledb.compress_orderby = 'time DESC')`,
    );
    const minutes = (from: Date, to: Date, value: number, instances: string[]) =>
      knex.raw(
        `INSERT INTO metric_samples (time, system_id, name, instance, value)
         SELECT t, ?, 'disk.used_pct', i, ? FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '1 minute') t,
                unnest(?::text[]) i`,
        [systemId, value, from, to, instances],
      );
    await minutes(new Date(now.getTime() - 4 * DAY), new Date(now.getTime() - 4 * DAY + 2 * HOUR), 50, ['/', '/var']);
    await knex.raw("SELECT compress_chunk(c) FROM show_chunks('metrics') c");
    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), log);
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    assert.ok(
      logged.some((line) => line.includes('metrics compression now segments by system_id, set_id')),
      logged.join(''),
    );
    const segmentBy = await rows<{ attname: string }>(
      `SELECT attname FROM timescaledb_information.compression_settings
        WHERE hypertable_name = 'metrics' AND segmentby_column_index IS NOT NULL ORDER BY segmentby_column_index`,
    );
    assert.deepEqual(
      segmentBy.map((r) => r.attname),
      ['system_id', 'set_id'],
    );
    const count = () => rows<{ n: string }>("SELECT count(*) AS n FROM metric_samples WHERE name = 'disk.used_pct'");
    assert.equal(Number((await count())[0]?.n), 2 * 121, 'the old compressed chunk reads back whole');
    // a chunk compressed now takes the new settings, next to the old one
    await minutes(new Date(now.getTime() - 3 * DAY), new Date(now.getTime() - 3 * DAY + HOUR), 60, ['/']);
    await knex.raw("SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('metrics') c");
    assert.equal(Number((await count())[0]?.n), 2 * 121 + 61);
    const again = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(again.ok, true);
  });

  it('compresses the rollups past their compress_after, and the views read them back unchanged', async () => {
    // 25 days ago: kept by metrics_5m (30 d), well past its compress_after (2 days)
    const from = new Date(now.getTime() - 25 * DAY);
    await knex.raw(
      `INSERT INTO metric_samples (time, system_id, name, instance, value)
       SELECT t, ?, 'load.1', '', extract(minute FROM t) FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '1 minute') t`,
      [systemId, from, new Date(from.getTime() + 2 * HOUR - 60_000)],
    );
    await knex.raw('CALL refresh_continuous_aggregate(?::regclass, ?::timestamptz, ?::timestamptz)', [
      'metrics_5m',
      from,
      new Date(from.getTime() + 2 * HOUR),
    ]);
    const averages = () =>
      rows<{ bucket: Date; avg: number }>(
        `SELECT r.bucket, r.avgs[1] AS avg FROM metrics_5m r JOIN metric_series_sets s ON s.id = r.set_id
          WHERE r.system_id = ? AND s.names = ARRAY['load.1'] AND r.bucket >= ? AND r.bucket < ? ORDER BY r.bucket`,
        [systemId, from, new Date(from.getTime() + 2 * HOUR)],
      );
    const before = await averages();
    assert.equal(before.length, 24);
    const compressAfter = (await jobOf('policy_compression', 'metrics_5m')).config['compress_after'];
    assert.equal(compressAfter, '2 days', 'at the age of raw samples, inside the refresh window');

    await runJob('policy_compression', 'metrics_5m');
    const [materialised] = await rows<{ schema: string; name: string }>(
      `SELECT materialization_hypertable_schema AS schema, materialization_hypertable_name AS name
         FROM timescaledb_information.continuous_aggregates WHERE view_name = 'metrics_5m'`,
    );
    const rollupChunks = await rows<{ range_end: Date; is_compressed: boolean }>(
      `SELECT range_end, is_compressed FROM timescaledb_information.chunks
        WHERE hypertable_schema = ? AND hypertable_name = ?`,
      [materialised?.schema ?? '', materialised?.name ?? ''],
    );
    const old = rollupChunks.filter((c) => c.range_end.getTime() < now.getTime() - 2 * DAY);
    assert.ok(old.length > 0 && old.every((c) => c.is_compressed), JSON.stringify(rollupChunks));
    assert.ok(
      rollupChunks.filter((c) => c.range_end.getTime() > now.getTime() - 2 * DAY).every((c) => !c.is_compressed),
      'the newest two days stay uncompressed',
    );
    assert.deepEqual(await averages(), before);
    const settings = await rows<{ segmentby: string | null; orderby: string | null }>(
      `SELECT segmentby, orderby FROM timescaledb_information.hypertable_compression_settings
        WHERE hypertable = format('%I.%I', ?::text, ?::text)::regclass`,
      [materialised?.schema ?? '', materialised?.name ?? ''],
    );
    assert.deepEqual(settings, [{ segmentby: 'system_id,set_id', orderby: 'bucket DESC' }], 'a segment per system');
  });

  it('moves a rollup compressed with the default settings to one segment per system; old chunks stay readable', async () => {
    const from = new Date(now.getTime() - 20 * DAY);
    await knex.raw(
      `INSERT INTO metric_samples (time, system_id, name, instance, value)
       SELECT t, ?, 'load.5', '', extract(minute FROM t) FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '1 minute') t`,
      [systemId, from, new Date(from.getTime() + HOUR - 60_000)],
    );
    const hourAfter = new Date(from.getTime() + HOUR);
    const refresh = 'CALL refresh_continuous_aggregate(?::regclass, ?::timestamptz, ?::timestamptz)';
    await knex.raw(refresh, ['metrics_1h', from, hourAfter]);
    const hourly = () =>
      rows<{ bucket: Date; avg: number; min: number; max: number; count: string }>(
        `SELECT r.bucket, r.avgs[1] AS avg, r.mins[1] AS min, r.maxs[1] AS max, r.count
           FROM metrics_1h r JOIN metric_series_sets s ON s.id = r.set_id
          WHERE r.system_id = ? AND s.names = ARRAY['load.5'] ORDER BY r.bucket`,
        [systemId],
      );
    const before = await hourly();
    assert.deepEqual(
      before.map((b) => [b.avg, b.min, b.max, Number(b.count)]),
      [[29.5, 0, 59, 60]],
    );
    // the release before: TimescaleDB's own settings for a continuous aggregate, chunks compressed with them
    const [materialised] = await rows<{ name: string }>(
      `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
         FROM timescaledb_information.continuous_aggregates WHERE view_name = 'metrics_1h'`,
    );
    const mat = materialised?.name ?? '';
    await knex.raw(
      `ALTER MATERIALIZED VIEW metrics_1h SET (timescaledb.compress = true, timescaledb.compress_segmentby = '',
                                              timescaledb.compress_orderby = 'bucket, system_id, set_id')`,
    );
    await knex.raw('SELECT compress_chunk(c) FROM show_chunks(?::regclass, older_than => ?::timestamptz) c', [
      mat,
      new Date(now.getTime() - 10 * DAY),
    ]);
    const settings = () =>
      rows<{ segmentby: string }>(
        `SELECT coalesce(segmentby, '') AS segmentby FROM timescaledb_information.hypertable_compression_settings
          WHERE hypertable = ?::regclass`,
        [mat],
      );
    assert.deepEqual(await settings(), [{ segmentby: '' }]);

    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), log);
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    assert.ok(
      logged.some((line) => line.includes('metrics_1h compression now segments by system_id, set_id')),
      logged.join(''),
    );
    assert.deepEqual(await settings(), [{ segmentby: 'system_id,set_id' }]);
    assert.deepEqual(await hourly(), before, 'the chunk compressed with the old settings reads back whole');
    // recompressed now, the same chunk takes the new settings and reads the same
    await knex.raw('SELECT decompress_chunk(c, if_compressed => true) FROM show_chunks(?::regclass) c', [mat]);
    await runJob('policy_compression', 'metrics_1h');
    const compressed = await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM timescaledb_information.chunks
        WHERE format('%I.%I', hypertable_schema, hypertable_name) = ? AND is_compressed`,
      [mat],
    );
    assert.ok((compressed[0]?.n ?? 0) > 0);
    assert.deepEqual(await hourly(), before);
    const again = await setupTimescale(knex, loadRetentionConfig({}), log);
    assert.equal(again.ok, true);
    assert.equal(logged.filter((line) => line.includes('metrics_1h compression now segments')).length, 1, 'once');
  });
});
