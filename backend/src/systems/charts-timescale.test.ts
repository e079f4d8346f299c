/**
 * Chart source selection with TimescaleDB (the WASM build): the rollups exist,
 * so a week comes from metrics_5m and a quarter from metrics_1h, and their
 * numbers agree with the raw samples they summarise; the batched read of several
 * series answers what each series' own read answers, at every source. (Without
 * TimescaleDB the same service reads raw rows: fleet.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadRetentionConfig } from '../config.js';
import { createKnex } from '../../../db/connection.js';
import { startEmbeddedTimescale, type EmbeddedDb } from '../../../db/embedded.js';
import { runMigrations } from '../../../db/migrate.js';
import { setupTimescale } from '../../../db/timescale.js';
import { createMemoryBus } from '../bus/memory-bus.js';
import { ADMIN } from '../testing/principals.js';
import { FakeClock } from '../lib/clock.js';
import { createSystemsRepo } from './repo.js';
import { createScriptChecksReader } from './script-checks-repo.js';
import { createContainerImagesReader } from './container-images-repo.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { createSystemsService, MAX_POINTS } from './service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('chart data on TimescaleDB (WASM)', () => {
  let embedded: EmbeddedDb;
  let knex: Knex;
  let systemId: number;
  let mixedId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);

  before(async () => {
    embedded = await startEmbeddedTimescale({ log: pino({ level: 'silent' }) });
    knex = createKnex({ url: embedded.url, poolMax: 1 });
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), pino({ level: 'silent' }));
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
    const [customer] = await knex('customers').insert({ name: 'C' }).returning('id');
    const [system] = await knex('systems')
      .insert({ customer_id: (customer as { id: number }).id, name: 's1' })
      .returning('id');
    systemId = (system as { id: number }).id;
    // one sample every 5 minutes for 100 days: the value is the sample's minute of the hour,
    // so every full hour averages 27.5 with min 0 and max 55
    await knex.raw(
      `INSERT INTO metrics (time, system_id, set_id, vals)
       SELECT t, ?, metric_series_set_id(ARRAY['cpu.usage_pct'], ARRAY['']), ARRAY[extract(minute FROM t)]::real[]
         FROM generate_series(?::timestamptz - INTERVAL '100 days', ?::timestamptz - INTERVAL '5 minutes', INTERVAL '5 minutes') t`,
      [systemId, now.toISOString(), now.toISOString()],
    );

    // a second host whose series change position halfway (a disk mounted: a new set), 60 days of
    // reports every 10 minutes, and per-sample rollup rows kept from before the upgrade
    const [mixed] = await knex('systems')
      .insert({ customer_id: (customer as { id: number }).id, name: 's2' })
      .returning('id');
    mixedId = (mixed as { id: number }).id;
    await knex.raw(
      `INSERT INTO metrics (time, system_id, set_id, vals)
       SELECT t, ?,
              CASE WHEN t < ?::timestamptz - INTERVAL '30 days'
                THEN metric_series_set_id(ARRAY['cpu.usage_pct', 'disk.used_pct'], ARRAY['', '/'])
                ELSE metric_series_set_id(ARRAY['disk.used_pct', 'disk.used_pct', 'cpu.usage_pct'], ARRAY['/', '/srv', ''])
              END,
              CASE WHEN t < ?::timestamptz - INTERVAL '30 days'
                THEN ARRAY[extract(minute FROM t), extract(hour FROM t)]
                ELSE ARRAY[extract(hour FROM t), 40 + extract(minute FROM t) / 10, extract(minute FROM t) + 0.1]
              END::real[]
         FROM generate_series(?::timestamptz - INTERVAL '60 days', ?::timestamptz - INTERVAL '1 minute', INTERVAL '10 minutes') t`,
      [mixedId, now.toISOString(), now.toISOString(), now.toISOString(), now.toISOString()],
    );
    for (const [table, width] of [
      ['metrics_5m_legacy', '5 minutes'],
      ['metrics_1h_legacy', '1 hour'],
    ] as const) {
      await knex.raw(`CREATE TABLE ${table} (bucket timestamptz NOT NULL, system_id integer NOT NULL, name text NOT NULL,
                        instance text NOT NULL, avg float8, min float8, max float8, count bigint)`);
      await knex.raw(
        `INSERT INTO ${table} SELECT b, ?, 'cpu.usage_pct', '', 33.5, 20, 47, 6
           FROM generate_series(?::timestamptz - INTERVAL '70 days', ?::timestamptz - INTERVAL '5 days', INTERVAL '${width}') b`,
        [mixedId, now.toISOString(), now.toISOString()],
      );
    }
  });

  after(async () => {
    await knex?.destroy();
    await embedded?.close();
  });

  const service = () =>
    createSystemsService({
      repo: createSystemsRepo(knex),
      scriptChecks: createScriptChecksReader(knex),
      containerImages: createContainerImagesReader(knex),
      bus: createMemoryBus(),
      clock: new FakeClock(now),
      audit: createAuditService({ repo: createAuditRepo(knex), clock: new FakeClock(now) }),
    });
  const query = (rangeMs: number) => ({
    systemId,
    name: 'cpu.usage_pct',
    instance: '',
    from: new Date(now.getTime() - rangeMs),
    to: now,
  });

  it('reads an hour from raw samples', async () => {
    const answer = await service().metrics(ADMIN, query(HOUR));
    assert.equal(answer.source, 'raw');
    assert.equal(answer.points.length, 12, 'every 5-minute sample of the hour');
  });

  it('reads a week from metrics_5m and a quarter from metrics_1h, agreeing with the raw samples', async () => {
    const week = await service().metrics(ADMIN, query(7 * DAY));
    assert.equal(week.source, '5m');
    assert.ok(week.points.length <= MAX_POINTS + 1 && week.points.length > 500, `${week.points.length} points`);

    const quarter = await service().metrics(ADMIN, query(90 * DAY));
    assert.equal(quarter.source, '1h');
    assert.ok(
      quarter.points.length <= MAX_POINTS + 1 && quarter.points.length > 500,
      `${quarter.points.length} points`,
    );
    // buckets are whole hours (a multiple of the rollup's width): each is exactly the hour's samples
    for (const [, avg, min, max] of quarter.points.slice(1, -1)) {
      assert.equal(Math.round((avg as number) * 1000) / 1000, 27.5);
      assert.equal(min, 0);
      assert.equal(max, 55);
    }
  });

  it('answers a batch of series as each series alone, from raw rows and from both rollups', async () => {
    const series = [
      { name: 'disk.used_pct', instance: '/srv' },
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'load.1', instance: '' },
      { name: 'disk.used_pct', instance: '/' },
    ];
    const sources = new Set<string>();
    for (const rangeMs of [6 * HOUR, 2 * DAY, 7 * DAY, 45 * DAY, 90 * DAY]) {
      const window = { from: new Date(now.getTime() - rangeMs), to: now };
      const batch = await service().metricsBatch(ADMIN, { systemId: mixedId, series, ...window });
      sources.add(batch.source);
      assert.deepEqual(
        batch.series.map((s) => `${s.name} ${s.instance}`),
        series.map((s) => `${s.name} ${s.instance}`),
      );
      for (const [i, { name, instance }] of series.entries()) {
        const alone = await service().metrics(ADMIN, { systemId: mixedId, name, instance, ...window });
        assert.equal(alone.source, batch.source);
        assert.equal(alone.bucketSeconds, batch.bucketSeconds);
        assert.deepEqual(batch.series[i]!.points, alone.points, `${name} ${instance} over ${rangeMs / HOUR} h`);
      }
      assert.deepEqual(batch.series[2]!.points, [], 'a series never reported has no points');
      assert.ok(batch.series[1]!.points.length > 30, `cpu over ${rangeMs / HOUR} h: ${batch.series[1]!.points.length}`);
    }
    assert.deepEqual([...sources].sort(), ['1h', '5m', 'raw']);
  });
});
