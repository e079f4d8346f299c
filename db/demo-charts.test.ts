/**
 * The demo's storage on the WASM build of TimescaleDB (as `npm run demo` runs it): its seeded
 * history is one row per report sharing one series set, and its charts read it at every range,
 * before and after the rollups' refresh jobs have materialised it (docs/decisions.md "One row per report").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createKnex } from './connection.js';
import { seedDemo } from './demo-data.js';
import { startEmbeddedTimescale, type EmbeddedDb } from './embedded.js';
import { loadRetentionConfig } from './environment.js';
import { runMigrations } from './migrate.js';
import { chartsOf, HOUR, rowsOf } from '../backend/src/testing/report-rows.js';
import { setupTimescale } from './timescale.js';

const DAY = 24 * HOUR;
const RANGES = [HOUR, 2 * DAY, 7 * DAY, 30 * DAY, 400 * DAY];

describe('the demo on the WASM build: schema and charts', { timeout: 300_000 }, () => {
  let embedded: EmbeddedDb;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);

  before(async () => {
    embedded = await startEmbeddedTimescale({ log: pino({ level: 'silent' }) });
    knex = createKnex({ url: embedded.url, poolMax: 1 });
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), pino({ level: 'silent' }));
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    assert.ok(await seedDemo(knex, now));
    const [first] = await rowsOf<{ system_id: number }>(knex, 'SELECT min(system_id) AS system_id FROM metrics');
    systemId = first?.system_id ?? 0;
  });
  after(async () => {
    await knex?.destroy();
    await embedded?.close();
  });

  it('stores the seeded history as one row per report, sharing one series set', async () => {
    const [sets] = await rowsOf<{ n: string; series: number }>(
      knex,
      'SELECT count(*) AS n, max(cardinality(names)) AS series FROM metric_series_sets',
    );
    assert.deepEqual([Number(sets?.n), sets?.series], [1, 10]);
    const [rows] = await rowsOf<{ n: string }>(knex, 'SELECT count(*) AS n FROM metrics WHERE system_id = ?', [
      systemId,
    ]);
    assert.equal(Number(rows?.n), 3 * 288 + 1, 'a report every 5 minutes for 3 days');
  });

  it('draws every range, the same before and after the refresh jobs, as the per-sample values say', async () => {
    const charts = await chartsOf(knex, systemId, now);
    const drawn = async () => {
      const out = [];
      for (const range of RANGES) out.push(await charts('disk.used_pct', '/var', range));
      return out;
    };
    const before = await drawn();
    const [expected] = await rowsOf<{ min: number; max: number }>(
      knex,
      `SELECT min(value::real)::text::float8 AS min, max(value::real)::text::float8 AS max FROM metric_samples
        WHERE system_id = ? AND name = 'disk.used_pct' AND instance = '/var'`,
      [systemId],
    );
    for (const chart of before) assert.ok(chart.points.length > 0, chart.source);
    // the ranges of a week and more hold the whole history: their extremes are the samples'
    for (const chart of before.slice(2)) {
      assert.equal(Math.min(...chart.points.map((p) => p[2] ?? NaN)), expected?.min, `${chart.source} min`);
      assert.equal(Math.max(...chart.points.map((p) => p[3] ?? NaN)), expected?.max, `${chart.source} max`);
    }
    assert.deepEqual(
      before.map((c) => c.source),
      ['raw', 'raw', '5m', '5m', '1h'],
    );
    assert.ok((await embedded.runDueJobs()) >= 2, 'the refresh jobs ran');
    const after = await drawn();
    for (const [k, chart] of after.entries()) {
      const earlier = before[k];
      assert.equal(chart.points.length, earlier?.points.length, chart.source);
      for (const [i, point] of chart.points.entries())
        for (const [j, value] of point.entries())
          assert.ok(Math.abs(value - (earlier?.points[i]?.[j] ?? NaN)) < 1e-3, `${chart.source} point ${i}`);
    }
  });
});
