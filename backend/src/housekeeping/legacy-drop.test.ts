/**
 * The per-sample tables kept from before one row per report go once nothing in them is kept any
 * more: the hourly housekeeping drops them when each is empty or holds only rows past its retention.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createHousekeepingRepo } from './repo.js';
import { createHousekeeping, legacyPastRetention, type SampleRetention } from './service.js';

const DAY = 86_400_000;
const RETENTION: SampleRetention = { rawMs: 7 * DAY, rollup5mMs: 30 * DAY, rollup1hMs: 400 * DAY };
const NOW = new Date('2026-11-28T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

describe('housekeeping: the legacy per-sample tables', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  const legacyExists = async () =>
    ((await db.knex.raw("SELECT to_regclass('metrics_legacy') IS NOT NULL AS found")) as { rows: { found: boolean }[] })
      .rows[0]?.found;

  async function runAt(now: Date) {
    const logs = captureLogger();
    await createHousekeeping({
      repo: createHousekeepingRepo(db.knex),
      clock: new FakeClock(now),
      log: logs.log,
      sampleRetention: RETENTION,
    }).runOnce();
    return logs;
  }

  it('keeps a plain metrics_legacy while the charts may read it, and drops it once past every retention', async () => {
    // plain PostgreSQL: the per-sample table as the release before one row per report left it
    await db.knex.raw(
      'CREATE TABLE metrics_legacy (time timestamptz NOT NULL, system_id int NOT NULL, name text, instance text, value float8)',
    );
    await db
      .knex('metrics_legacy')
      .insert({ time: ago(10), system_id: 1, name: 'cpu.usage_pct', instance: '', value: 1 });

    await runAt(NOW);
    assert.equal(await legacyExists(), true, 'past the raw retention, but the charts read it for 400 days');

    const logs = await runAt(new Date(NOW.getTime() + 391 * DAY));
    assert.equal(await legacyExists(), false, 'past the longest retention: dropped');
    assert.ok(
      logs.messages().some((m) => m.startsWith('Dropped the per-sample tables')),
      logs.messages().join('\n'),
    );
    await runAt(new Date(NOW.getTime() + 392 * DAY)); // nothing left: nothing to do, no error
  });

  it('drops an empty metrics_legacy at the next run', async () => {
    await db.knex.raw('CREATE TABLE metrics_legacy (time timestamptz NOT NULL, system_id int NOT NULL, value float8)');
    await runAt(NOW);
    assert.equal(await legacyExists(), false);
  });

  it('on TimescaleDB, waits for each relation to pass its own retention', () => {
    const tables = (raw: number | null, m5: number | null, h1: number | null) => [
      { relation: 'metrics_legacy' as const, newest: raw === null ? null : ago(raw) },
      { relation: 'metrics_5m_legacy' as const, newest: m5 === null ? null : ago(m5) },
      { relation: 'metrics_1h_legacy' as const, newest: h1 === null ? null : ago(h1) },
    ];
    const past = (list: ReturnType<typeof tables>) => legacyPastRetention(list, true, RETENTION, NOW);
    assert.equal(past(tables(8, 20, 20)), false, 'the 5-minute rollup still holds kept buckets');
    assert.equal(past(tables(8, 31, 390)), false, 'the hourly rollup still holds kept buckets');
    assert.equal(past(tables(6, 31, 401)), false, 'a raw row still kept');
    assert.equal(past(tables(8, 31, 401)), true);
    assert.equal(past(tables(null, null, 401)), true, 'empty ones count as past');
    assert.equal(past(tables(null, null, null)), true);
  });
});
