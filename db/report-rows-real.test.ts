/**
 * One row per report on the real extension (TimescaleDB 2.28.3 in a private PostgreSQL 15 cluster,
 * as timescale-real.test.ts): storing through the group-commit writer, dedupe and replay, a series
 * set changing mid-stream, the rollups refreshed by `CALL run_job` against the per-sample
 * computation, compression of raw rows and rollups (docs/decisions.md "One row per report").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createGroupCommitWriter, type WriteRequest } from '../backend/src/ingest/group-commit.js';
import { packed, type Sample as SampleToStore } from '../backend/src/ingest/series-sets.js';
import { createIngestRepo } from '../backend/src/ingest/repo.js';
import {
  chartsOf,
  HOUR,
  MINUTE,
  refreshNow,
  rowsOf,
  startSetUpRealTimescale,
  stopRealTimescale,
  type RealTimescale,
} from '../backend/src/testing/report-rows.js';

const SILENT = pino({ level: 'silent' });

describe('one row per report on the real extension', { timeout: 300_000 }, () => {
  let real: RealTimescale | undefined;
  let knex: Knex;
  let customerId: number;
  // the hour, moved back (up to 2 h) so that its hours 3 to 1 before lie in one 10-hour bucket of the
  // 400-day chart (date_bin from the epoch), which one test counts on
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  const now = new Date(hour - Math.max(0, ((hour - 3 * HOUR) % (10 * HOUR)) - 8 * HOUR));
  const rows = <T>(sql: string, bindings: Knex.RawBinding[] = []) => rowsOf<T>(knex, sql, bindings);

  before(async () => {
    real = await startSetUpRealTimescale();
    knex = real.knex;
    const [customer] = await knex('customers').insert({ name: 'Rows' }).returning('id');
    customerId = (customer as { id: number }).id;
  });
  after(() => stopRealTimescale(real));

  const system = async (name: string): Promise<number> => {
    const [row] = await knex('systems').insert({ customer_id: customerId, name }).returning('id');
    return (row as { id: number }).id;
  };
  const request = (systemId: number, reports: { ms: number; metrics: SampleToStore[] }[], replay = false) =>
    ({
      systemId,
      reports: reports.map((r) => ({ ms: r.ms, ...packed(r.metrics), events: [] })),
      touch: { seenAt: new Date(), version: null, hostname: null, os: null, kernel: null, arch: null, cores: null },
      replay,
    }) satisfies WriteRequest;
  const writer = () => createGroupCommitWriter({ repo: createIngestRepo(knex), log: SILENT, windowMs: 1 });

  it('stores a report as one row, shares its series set, and stores duplicates and replays once', async () => {
    const id = await system('rows-01');
    const at = now.getTime() - 30 * MINUTE;
    const sample = (value: number): SampleToStore[] => [
      { name: 'cpu.usage_pct', value },
      { name: 'disk.used_pct', instance: '/', value: value + 1 },
      { name: 'uptime.s', value: 31_536_123 },
    ];
    const w = writer();
    const [first, again] = await Promise.all([
      w.write(request(id, [{ ms: at, metrics: sample(12.3) }])),
      w.write(request(id, [{ ms: at, metrics: sample(99) }])),
    ]);
    assert.deepEqual([first.stored, again.stored], [[true], [false]], 'the same report twice: stored once');
    const replay = await w.write(
      request(
        id,
        [
          { ms: at, metrics: sample(50) },
          { ms: at + 30_000, metrics: sample(13.3) },
        ],
        true,
      ),
    );
    assert.deepEqual(replay.stored, [false, true], 'a replayed buffer stores only what is new');
    await w.close();

    const stored = await rows<{ set_id: number; vals: number[] }>(
      'SELECT set_id, vals FROM metrics WHERE system_id = ? ORDER BY time',
      [id],
    );
    assert.equal(stored.length, 2, 'one row per report');
    assert.equal(stored[0]?.set_id, stored[1]?.set_id, 'the two reports share their series set');
    assert.deepEqual(stored[0]?.vals, [12.3, 13.3, 31536124], 'values as float4, the first copy kept');
    const [set] = await rows<{ names: string[]; instances: string[] }>(
      'SELECT names, instances FROM metric_series_sets WHERE id = ?',
      [stored[0]?.set_id ?? 0],
    );
    assert.deepEqual(set, { names: ['cpu.usage_pct', 'disk.used_pct', 'uptime.s'], instances: ['', '/', ''] });
    const charts = await chartsOf(knex, id, now);
    const cpu = await charts('cpu.usage_pct', '', HOUR);
    assert.deepEqual(
      cpu.points.map((p) => p[1]),
      [12.3, 13.3],
      'the chart reads 12.3, not 12.300000190734863',
    );
    const uptime = await charts('uptime.s', '', HOUR);
    assert.ok(Math.abs((uptime.points[0]?.[1] ?? 0) - 31_536_123) <= 2, 'an uptime of a year within 2 s');
  });

  it('keeps a series one line when a new set moves it, at every chart range', async () => {
    const id = await system('rows-02');
    const start = now.getTime() - 3 * HOUR;
    const reports = Array.from({ length: 120 }, (_, k) => {
      const ms = start + k * MINUTE;
      const metrics: SampleToStore[] = [{ name: 'cpu.usage_pct', value: k }];
      // a disk mounted after an hour: mem.used_pct moves from position 2 to 3
      if (k >= 60) metrics.push({ name: 'disk.used_pct', instance: '/data', value: 5 });
      metrics.push({ name: 'mem.used_pct', value: 1000 + k });
      return { ms, metrics };
    });
    const w = writer();
    await w.write(request(id, reports));
    await w.close();
    assert.equal(
      Number(
        (await rows<{ n: string }>('SELECT count(DISTINCT set_id) AS n FROM metrics WHERE system_id = ?', [id]))[0]?.n,
      ),
      2,
    );
    await refreshNow(knex, 'metrics_5m');
    const charts = await chartsOf(knex, id, now);
    const raw = await charts('mem.used_pct', '', 4 * HOUR);
    assert.equal(raw.source, 'raw');
    assert.deepEqual(
      raw.points.map((p) => p[1]),
      reports.map((_, k) => 1000 + k),
      'one point a report, across the change',
    );
    for (const range of [7 * 24 * HOUR, 400 * 24 * HOUR]) {
      const rolled = await charts('mem.used_pct', '', range);
      assert.notEqual(rolled.source, 'raw');
      const lo = Math.min(...rolled.points.map((p) => p[2] ?? NaN));
      const hi = Math.max(...rolled.points.map((p) => p[3] ?? NaN));
      assert.deepEqual([lo, hi], [1000, 1119], `${rolled.source}: min and max across both sets`);
    }
    const year = await charts('mem.used_pct', '', 400 * 24 * HOUR);
    assert.equal(year.points.length, 1, 'two hours in one bucket of the 400-day chart');
    assert.ok(Math.abs((year.points[0]?.[1] ?? 0) - 1059.5) < 1e-3, 'the average of both sets, weighted by count');
    const mounted = await charts('disk.used_pct', '/data', 4 * HOUR);
    assert.equal(mounted.points.length, 60, 'the new series from its first report on');
  });

  it('refreshes rollups by CALL run_job equal, value for value, to the per-sample computation', async () => {
    const ids = [await system('rows-03'), await system('rows-04')];
    const start = now.getTime() - 5 * HOUR;
    const w = writer();
    for (const id of ids) {
      const reports = Array.from({ length: 4 * 120 }, (_, k) => {
        const metrics: SampleToStore[] = [
          { name: 'cpu.usage_pct', value: ((k * 37 + id * 11) % 1000) / 10 },
          { name: 'net.rx_bytes', instance: 'eth0', value: 1e12 + k * 123_457 },
        ];
        if (k % 200 > 100) metrics.unshift({ name: 'load.1', value: (k % 17) / 4 });
        return { ms: start + k * 30_000, metrics };
      });
      await w.write(request(id, reports));
    }
    await w.close();
    for (const view of ['metrics_5m', 'metrics_1h']) {
      await refreshNow(knex, view);
      const width = view === 'metrics_5m' ? '5 minutes' : '1 hour';
      const compared = await rows<{
        series: string;
        n: string;
        worst_avg: number;
        min_off: string;
        max_off: string;
        count_off: string;
      }>(
        `WITH rolled AS (
           SELECT r.bucket, r.system_id, u.name, u.instance, r.count, u.avg, u.min, u.max
             FROM ${view} r JOIN metric_series_sets s ON s.id = r.set_id,
                  unnest(s.names, s.instances, r.avgs, r.mins, r.maxs) AS u(name, instance, avg, min, max)
            WHERE r.system_id = ANY(?)),
         combined AS (
           SELECT bucket, system_id, name, instance, sum(count) AS count, sum(avg::float8 * count) / sum(count) AS avg,
                  min(min) AS min, max(max) AS max
             FROM rolled GROUP BY 1, 2, 3, 4),
         expected AS (
           SELECT time_bucket(?::interval, time) AS bucket, system_id, name, instance, count(*) AS count,
                  avg(value) AS avg, min(value::real) AS min, max(value::real) AS max
             FROM metric_samples WHERE system_id = ANY(?) GROUP BY 1, 2, 3, 4)
         SELECT e.name || e.instance AS series, count(*) AS n,
                max(abs(c.avg - e.avg) / greatest(abs(e.avg), 1)) AS worst_avg,
                count(*) FILTER (WHERE c.min IS DISTINCT FROM e.min) AS min_off,
                count(*) FILTER (WHERE c.max IS DISTINCT FROM e.max) AS max_off,
                count(*) FILTER (WHERE c.count IS DISTINCT FROM e.count) AS count_off
           FROM expected e LEFT JOIN combined c USING (bucket, system_id, name, instance)
          GROUP BY 1 ORDER BY 1`,
        [ids, width, ids],
      );
      assert.equal(compared.length, 3, view);
      for (const series of compared) {
        assert.ok(Number(series.n) > 0);
        assert.deepEqual(
          [series.min_off, series.max_off, series.count_off].map(Number),
          [0, 0, 0],
          `${view} ${series.series}`,
        );
        assert.ok(series.worst_avg < 1e-6, `${view} ${series.series}: averages within float4 (${series.worst_avg})`);
      }
    }
  });

  it('compresses raw rows and rollups; both read back unchanged', async () => {
    const id = await system('rows-05');
    const from = now.getTime() - 4 * 24 * HOUR;
    const w = writer();
    await w.write(
      request(
        id,
        Array.from({ length: 240 }, (_, k) => ({
          ms: from + k * 30_000,
          metrics: [
            { name: 'cpu.usage_pct', value: (k % 50) / 2 },
            { name: 'mem.used_pct', value: 40 + (k % 7) },
          ],
        })),
      ),
    );
    await w.close();
    await knex.raw('CALL refresh_continuous_aggregate(?::regclass, ?::timestamptz, ?::timestamptz)', [
      'metrics_5m',
      new Date(from),
      new Date(from + 2 * HOUR),
    ]);
    const samples = () =>
      rows('SELECT time, name, value FROM metric_samples WHERE system_id = ? ORDER BY time, name', [id]);
    const rollup = () =>
      rows('SELECT bucket, set_id, count, avgs, mins, maxs FROM metrics_5m WHERE system_id = ? ORDER BY bucket', [id]);
    const [rawBefore, rollupBefore] = [await samples(), await rollup()];
    assert.equal(rawBefore.length, 480);
    await knex.raw(
      "SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('metrics', older_than => INTERVAL '2 days') c",
    );
    const [materialised] = await rows<{ name: string }>(
      `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
         FROM timescaledb_information.continuous_aggregates WHERE view_name = 'metrics_5m'`,
    );
    await knex.raw(`SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks(?::regclass) c`, [
      materialised?.name ?? '',
    ]);
    const compressed = await rows<{ hypertable_name: string }>(
      'SELECT DISTINCT hypertable_name FROM timescaledb_information.chunks WHERE is_compressed',
    );
    assert.equal(compressed.length, 2, 'raw and rollup chunks compressed');
    assert.deepEqual(await samples(), rawBefore);
    assert.deepEqual(await rollup(), rollupBefore);
  });
});
