import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../backend/src/testing/database.js';
import { DEFAULT_ALERT_RULES, DEFAULT_EVENT_RULES } from './default-rules.js';
import { RULES_SEEDED_MARKER, ensureDefaultRules } from './seed-rules.js';

async function count(db: TestDatabase, table: string): Promise<number> {
  const [row] = await db.knex(table).count<{ count: string }[]>({ count: '*' });
  return Number(row?.count);
}

describe('default rule seeding', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('defines 38 alert rules and 1 event rule with unique keys', () => {
    assert.equal(DEFAULT_ALERT_RULES.length, 38);
    assert.equal(DEFAULT_EVENT_RULES.length, 1);
    assert.equal(new Set(DEFAULT_ALERT_RULES.map((r) => r.key)).size, 38);
    assert.equal(DEFAULT_EVENT_RULES[0]?.key, 'system.rebooted');
  });

  it('seeds once, records the marker, and keeps deleted rules deleted', async () => {
    assert.deepEqual(await ensureDefaultRules(db.knex), { alertRules: 38, eventRules: 1 });
    assert.equal(await count(db, 'alert_rules'), 38);
    assert.equal(await count(db, 'event_rules'), 1);
    assert.ok(await db.knex('app_settings').where({ key: RULES_SEEDED_MARKER }).first());

    await db.knex('alert_rules').whereIn('key', ['cpu.high', 'disk.high']).delete();
    await db.knex('event_rules').delete();
    assert.deepEqual(await ensureDefaultRules(db.knex), { alertRules: 0, eventRules: 0 });
    assert.equal(await count(db, 'alert_rules'), 36);
    assert.equal(await count(db, 'event_rules'), 0);
  });

  it('seeds exactly once when start-ups race', async () => {
    const fresh = await createTestDatabase();
    try {
      const results = await Promise.all([1, 2, 3, 4].map(() => ensureDefaultRules(fresh.knex)));
      assert.equal(results.filter((r) => r.alertRules === 38).length, 1);
      assert.equal(await count(fresh, 'alert_rules'), 38);
    } finally {
      await fresh.drop();
    }
  });

  it('does not add defaults to an instance that already has rules but no marker', async () => {
    const fresh = await createTestDatabase();
    try {
      await fresh.knex('alert_rules').insert({
        key: 'custom.rule',
        name: 'Custom',
        severity: 'WARNING',
        metric: 'cpu.usage_pct',
        operator: '>',
        threshold: 50,
      });
      assert.deepEqual(await ensureDefaultRules(fresh.knex), { alertRules: 0, eventRules: 0 });
      assert.equal(await count(fresh, 'alert_rules'), 1);
    } finally {
      await fresh.drop();
    }
  });

  it('stores the contract thresholds (spot check)', async () => {
    const clock = await db.knex('alert_rules').where({ key: 'clock.skew' }).first();
    assert.equal(clock.absolute, true);
    assert.equal(clock.threshold, 2000);
    const updates = await db.knex('alert_rules').where({ key: 'updates.security' }).first();
    assert.equal(updates.for_seconds, 7 * 86400);
    assert.equal(updates.severity, 'INFO');
  });
});
