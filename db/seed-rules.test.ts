import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../backend/src/testing/database.js';
import { CONTAINER_AND_PROCESS_RULES, DEFAULT_ALERT_RULES, DEFAULT_EVENT_RULES } from './default-rules.js';
import * as containerRules from './migrations/0025_container_process_rules.js';
import { RULES_SEEDED_MARKER, ensureCheckRules, ensureDefaultRules, ensureScriptRules } from './seed-rules.js';

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

  it('defines 44 alert rules and 1 event rule with unique keys', () => {
    assert.equal(DEFAULT_ALERT_RULES.length, 44);
    assert.equal(DEFAULT_EVENT_RULES.length, 1);
    assert.equal(new Set(DEFAULT_ALERT_RULES.map((r) => r.key)).size, 44);
    assert.equal(DEFAULT_EVENT_RULES[0]?.key, 'system.rebooted');
  });

  it('seeds once, records the marker, and keeps deleted rules deleted', async () => {
    assert.deepEqual(await ensureDefaultRules(db.knex), { alertRules: 44, eventRules: 1 });
    assert.equal(await count(db, 'alert_rules'), 44);
    assert.equal(await count(db, 'event_rules'), 1);
    assert.ok(await db.knex('app_settings').where({ key: RULES_SEEDED_MARKER }).first());

    await db.knex('alert_rules').whereIn('key', ['cpu.high', 'disk.high']).delete();
    await db.knex('event_rules').delete();
    assert.deepEqual(await ensureDefaultRules(db.knex), { alertRules: 0, eventRules: 0 });
    assert.equal(await count(db, 'alert_rules'), 42);
    assert.equal(await count(db, 'event_rules'), 0);
  });

  it('seeds exactly once when start-ups race', async () => {
    const fresh = await createTestDatabase();
    try {
      const results = await Promise.all([1, 2, 3, 4].map(() => ensureDefaultRules(fresh.knex)));
      assert.equal(results.filter((r) => r.alertRules === 44).length, 1);
      assert.equal(await count(fresh, 'alert_rules'), 44);
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

  it('seeds the container CPU and memory rules switched off, the other container and process rules on', async () => {
    const rows = await db.knex('alert_rules').where('key', 'like', 'container.%').orWhere('key', 'process.not_running');
    const enabled = Object.fromEntries(rows.map((r: { key: string; enabled: boolean }) => [r.key, r.enabled]));
    assert.deepEqual(enabled, {
      'container.exited': true,
      'container.unhealthy': true,
      'container.crash_loop': true,
      'container.cpu': false,
      'container.memory': false,
      'process.not_running': true,
    });
  });
});

describe('migration 0025: container and process rules for installations seeded before them', () => {
  it('adds the rules an earlier seeding did not have, keeps an admin’s own rule of a key, and the migration’s rows match the seed', async () => {
    const older = await createTestDatabase();
    try {
      await ensureDefaultRules(older.knex);
      const keys = CONTAINER_AND_PROCESS_RULES.map((r) => r.key);
      await older.knex('alert_rules').whereIn('key', keys).delete(); // as an installation seeded before them
      await older.knex('alert_rules').insert({
        key: 'process.not_running',
        name: 'My own',
        severity: 'WARNING',
        metric: 'processes.count',
        operator: '<',
        threshold: 2,
      });
      await containerRules.up(older.knex);
      const rows = await older.knex('alert_rules').whereIn('key', keys).orderBy('key');
      assert.equal(rows.length, 6);
      assert.equal(rows.find((r: { key: string }) => r.key === 'process.not_running').name, 'My own');
      for (const rule of CONTAINER_AND_PROCESS_RULES.filter((r) => r.key !== 'process.not_running')) {
        const row = rows.find((r: { key: string }) => r.key === rule.key);
        assert.deepEqual(
          [row.name, row.metric, row.operator, row.threshold, row.for_seconds, row.severity, row.enabled],
          [rule.name, rule.metric, rule.operator, rule.threshold, rule.forSeconds, rule.severity, rule.enabled ?? true],
          rule.key,
        );
      }
      assert.equal(await count(older, 'alert_rules'), 44);
      await containerRules.down(older.knex);
      assert.equal(await count(older, 'alert_rules'), 38);
    } finally {
      await older.drop();
    }
  });

  it('adds nothing to a fresh installation, which the seeding step fills after the migrations', async () => {
    const fresh = await createTestDatabase();
    try {
      await containerRules.up(fresh.knex);
      assert.equal(await count(fresh, 'alert_rules'), 0);
      assert.deepEqual(await ensureDefaultRules(fresh.knex), { alertRules: 44, eventRules: 1 });
    } finally {
      await fresh.drop();
    }
  });
});

describe("the network checks' default rules", () => {
  it("seeds the network checks' rules once, on an instance seeded before them too; a deleted one stays deleted", async () => {
    const fresh = await createTestDatabase();
    try {
      await ensureDefaultRules(fresh.knex);
      // an admin's own global check.slow before the upgrade is left as it is
      await fresh.knex('alert_rules').insert({
        key: 'check.slow',
        name: 'Mine',
        kind: 'metric',
        severity: 'INFO',
        metric: 'check.slow',
        operator: '==',
        threshold: 1,
        for_seconds: 0,
      });
      assert.equal(await ensureCheckRules(fresh.knex), 1);
      const down = await fresh.knex('alert_rules').where({ key: 'check.down' }).first();
      assert.deepEqual([down.severity, down.counts_as_downtime, down.threshold], ['CRITICAL', true, 1]);
      assert.equal((await fresh.knex('alert_rules').where({ key: 'check.slow' }).first()).name, 'Mine');
      await fresh.knex('alert_rules').where({ key: 'check.down' }).delete();
      assert.equal(await ensureCheckRules(fresh.knex), 0);
      assert.equal(await fresh.knex('alert_rules').where({ key: 'check.down' }).first(), undefined);
    } finally {
      await fresh.drop();
    }
  });
});

describe("the script checks' default rules", () => {
  it('seeds one rule per state once, UNKNOWN at WARNING; a deleted one stays deleted', async () => {
    const fresh = await createTestDatabase();
    try {
      await ensureDefaultRules(fresh.knex);
      assert.equal(await ensureScriptRules(fresh.knex), 3);
      const rules = await fresh.knex('alert_rules').where({ metric: 'script.state' }).orderBy('threshold');
      assert.deepEqual(
        rules.map((r) => [r.key, r.operator, r.threshold, r.severity, r.for_seconds]),
        [
          ['script.warning', '==', 1, 'WARNING', 0],
          ['script.critical', '==', 2, 'CRITICAL', 0],
          ['script.unknown', '==', 3, 'WARNING', 0],
        ],
      );
      await fresh.knex('alert_rules').where({ key: 'script.unknown' }).delete();
      assert.equal(await ensureScriptRules(fresh.knex), 0);
      assert.equal(await fresh.knex('alert_rules').where({ key: 'script.unknown' }).first(), undefined);
    } finally {
      await fresh.drop();
    }
  });
});
