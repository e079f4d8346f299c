/**
 * Chart source selection with TimescaleDB (the WASM build): the rollups exist,
 * so a week comes from metrics_5m and a quarter from metrics_1h, and their
 * numbers agree with the raw samples they summarise. (Without TimescaleDB the
 * same service reads raw rows: fleet.test.ts.)
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
import type { Principal } from '../lib/access.js';
import { FakeClock } from '../lib/clock.js';
import { createSystemsRepo } from './repo.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { createSystemsService, MAX_POINTS } from './service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('chart data on TimescaleDB (WASM)', () => {
  let embedded: EmbeddedDb;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const admin: Principal = {
    userId: 1,
    role: 'ADMIN',
    email: 'admin@example.com',
    via: 'session',
    sessionId: null,
    tokenId: null,
    customerIds: new Set(),
  } as Principal;

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
  });

  after(async () => {
    await knex?.destroy();
    await embedded?.close();
  });

  const service = () =>
    createSystemsService({
      repo: createSystemsRepo(knex),
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
    const answer = await service().metrics(admin, query(HOUR));
    assert.equal(answer.source, 'raw');
    assert.equal(answer.points.length, 12, 'every 5-minute sample of the hour');
  });

  it('reads a week from metrics_5m and a quarter from metrics_1h, agreeing with the raw samples', async () => {
    const week = await service().metrics(admin, query(7 * DAY));
    assert.equal(week.source, '5m');
    assert.ok(week.points.length <= MAX_POINTS + 1 && week.points.length > 500, `${week.points.length} points`);

    const quarter = await service().metrics(admin, query(90 * DAY));
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
});
