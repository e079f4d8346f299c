/**
 * Upgrading an installation of per-sample rows to one row per report, on the real extension: the
 * old hypertable with a week of raw samples (older history in its rollups only, some chunks
 * compressed) is kept as `metrics_legacy` beside the new table; start-up is not held; every chart
 * range reads the same points after the upgrade as before, and new reports continue the lines
 * (docs/decisions.md "One row per report").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createGroupCommitWriter } from '../backend/src/ingest/group-commit.js';
import { createIngestRepo } from '../backend/src/ingest/repo.js';
import { packed } from '../backend/src/ingest/series-sets.js';
import { pickSource } from '../backend/src/systems/service.js';
import {
  chartsOf,
  HOUR,
  rowsOf,
  settlePerSampleRows,
  startPerSampleRelease,
  stopPerSampleRelease,
  type Chart,
  type PerSampleRelease,
} from '../backend/src/testing/report-rows.js';
import { loadRetentionConfig } from './environment.js';
import { runMigrations } from './migrate.js';
import { setupTimescale } from './timescale.js';

const SILENT = pino({ level: 'silent' });
const DAY = 24 * HOUR;
const SERIES = [
  { name: 'cpu.usage_pct', instance: '' },
  { name: 'disk.used_pct', instance: '/' },
  { name: 'mem.used_pct', instance: '' },
];
const RANGES = [HOUR, 2 * DAY, 7 * DAY, 30 * DAY, 400 * DAY];

/** The chart SQL of that release: raw samples or rollup rows re-bucketed. */
async function previousChart(knex: Knex, systemId: number, now: Date, series: (typeof SERIES)[number], range: number) {
  const { source, bucketSeconds } = pickSource(range, true);
  const from = new Date(now.getTime() - range);
  const sql =
    source === 'raw'
      ? `SELECT extract(epoch FROM date_bin(make_interval(secs => ?), time, TIMESTAMPTZ 'epoch')) * 1000 AS t,
                avg(value) AS avg, min(value) AS min, max(value) AS max
           FROM metrics WHERE system_id = ? AND name = ? AND instance = ? AND time >= ? AND time < ?
          GROUP BY 1 ORDER BY 1`
      : `SELECT extract(epoch FROM date_bin(make_interval(secs => ?), bucket, TIMESTAMPTZ 'epoch')) * 1000 AS t,
                sum(avg * count) / nullif(sum(count), 0) AS avg, min(min) AS min, max(max) AS max
           FROM ${source === '5m' ? 'metrics_5m' : 'metrics_1h'}
          WHERE system_id = ? AND name = ? AND instance = ? AND bucket >= ? AND bucket < ?
          GROUP BY 1 ORDER BY 1`;
  const points = await rowsOf<Record<string, unknown>>(knex, sql, [
    bucketSeconds,
    systemId,
    series.name,
    series.instance,
    from,
    now,
  ]);
  return { source, points: points.map((p) => [p['t'], p['avg'], p['min'], p['max']].map(Number)) } satisfies Chart;
}

describe('upgrading per-sample rows to one row per report on the real extension', { timeout: 300_000 }, () => {
  let release: PerSampleRelease | undefined;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const rows = <T>(sql: string, bindings: Knex.RawBinding[] = []) => rowsOf<T>(knex, sql, bindings);

  before(async () => {
    release = await startPerSampleRelease();
    ({ knex, systemId } = release);
    // 20 days of a report every 5 minutes; the rollups take it all, then raw keeps its last 7 days
    await knex.raw(
      `INSERT INTO metrics (time, system_id, name, instance, value)
       SELECT t, ?, s.name, s.instance, round((extract(epoch FROM t) / 300 % 97 + s.k * 10)::numeric, 1)
         FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '5 minutes') t,
              unnest(?::text[], ?::text[]) WITH ORDINALITY AS s(name, instance, k)`,
      [
        systemId,
        new Date(now.getTime() - 20 * DAY),
        new Date(now.getTime() - 5 * 60_000),
        SERIES.map((s) => s.name),
        SERIES.map((s) => s.instance),
      ],
    );
    await settlePerSampleRows(knex, now, '7 days');
  });
  after(() => stopPerSampleRelease(release));

  it('keeps every chart range unchanged across the upgrade, and new reports continue the lines', async () => {
    const before = new Map<string, Chart>();
    for (const series of SERIES)
      for (const range of RANGES)
        before.set(`${series.name} ${range}`, await previousChart(knex, systemId, now, series, range));
    assert.ok((before.get(`cpu.usage_pct ${400 * DAY}`)?.points.length ?? 0) > 40, '20 days on the 400-day chart');

    const started = performance.now();
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    assert.ok(seconds < 30, `start-up steps took ${seconds.toFixed(1)} s`);
    const tables = await rows<{ hypertable_name: string }>(
      'SELECT hypertable_name FROM timescaledb_information.hypertables ORDER BY 1',
    );
    assert.ok(tables.some((t) => t.hypertable_name === 'metrics_legacy'));
    assert.deepEqual(
      (
        await rows<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'metrics' ORDER BY ordinal_position",
        )
      ).map((c) => c.column_name),
      ['time', 'system_id', 'set_id', 'vals'],
    );

    const charts = await chartsOf(knex, systemId, now);
    for (const series of SERIES)
      for (const range of RANGES) {
        const { source, points } = await charts(series.name, series.instance, range);
        assert.deepEqual(
          { source, points },
          before.get(`${series.name} ${range}`),
          `${series.name} over ${range / HOUR} h`,
        );
      }

    // a report after the upgrade: the same lines go on, from the new rows
    const writer = createGroupCommitWriter({ repo: createIngestRepo(knex), log: SILENT, windowMs: 1 });
    await writer.write({
      systemId,
      reports: [{ ms: now.getTime() - 60_000, ...packed(SERIES.map((s) => ({ ...s, value: 77 }))), events: [] }],
      touch: { seenAt: now, version: null, hostname: null, os: null, kernel: null, arch: null, cores: null },
    });
    await writer.close();
    for (const range of [HOUR, 7 * DAY, 400 * DAY]) {
      const chart = await charts('mem.used_pct', '', range);
      const old = before.get(`mem.used_pct ${range}`)?.points ?? [];
      const unchanged = chart.points.length > old.length ? old.length : old.length - 1;
      assert.deepEqual(chart.points.slice(0, unchanged), old.slice(0, unchanged), `${range / HOUR} h: the old points`);
      assert.notDeepEqual(chart.points.at(-1), old.at(-1), `${range / HOUR} h: the new report is drawn`);
    }
  });

  it('drops the legacy rows once retention has emptied them', async () => {
    await knex.raw("SELECT drop_chunks('metrics_legacy', older_than => now() + INTERVAL '1 day')");
    const kept = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(kept.ok, true, kept.messages.join('\n'));
    assert.ok(
      (await rows("SELECT 1 FROM pg_class WHERE relname = 'metrics_legacy'")).length === 1,
      'kept while its rollups hold history',
    );
    for (const view of ['metrics_5m_legacy', 'metrics_1h_legacy'])
      // their chunks span 10 days: past ones only go once the newest has ended
      await knex.raw(`SELECT drop_chunks(?::regclass, older_than => now() + INTERVAL '30 days')`, [view]);
    const dropped = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(dropped.ok, true, dropped.messages.join('\n'));
    assert.ok(
      dropped.messages.some((m) => m.startsWith('Dropped metrics_legacy')),
      dropped.messages.join('\n'),
    );
    assert.deepEqual(await rows("SELECT relname FROM pg_class WHERE relname LIKE '%legacy%'"), []);
    const chart = await (await chartsOf(knex, systemId, now))('mem.used_pct', '', HOUR);
    assert.deepEqual(
      chart.points.map((p) => p[1]),
      [77],
      'the new rows only',
    );
  });
});
