import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0026_forecast_rules.js';
import { RULES_SEEDED_MARKER } from '../../../db/seed-rules.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

describe('migration 0026_forecast_rules', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  const forecastKeys = async () =>
    (
      await db
        .knex('alert_rules')
        .where({ kind: 'forecast' })
        .orderBy('key')
        .select('key', 'severity', 'horizon_seconds')
    ).map(
      (r: { key: string; severity: string; horizon_seconds: number }) => `${r.key} ${r.severity} ${r.horizon_seconds}`,
    );

  it('adds no rule to an installation whose defaults are still to be seeded (the seed step brings them)', async () => {
    assert.deepEqual(await forecastKeys(), []);
    await down(db.knex);
    await up(db.knex);
    assert.deepEqual(await forecastKeys(), []);
  });

  it('adds the two disk forecasts to an installation seeded before, once, and goes down cleanly', async () => {
    await db.knex('app_settings').insert({ key: RULES_SEEDED_MARKER, value: JSON.stringify({ at: 'before' }) });
    await down(db.knex);
    await up(db.knex);
    const seeded = ['disk.forecast WARNING 259200', 'disk.forecast_critical CRITICAL 86400'];
    assert.deepEqual(await forecastKeys(), seeded);
    await assert.rejects(
      db.knex('alert_rules').insert({
        key: 'x.y',
        name: 'x',
        kind: 'forecast',
        severity: 'INFO',
        metric: 'm',
        operator: '>=',
        threshold: 1,
      }),
      /alert_rules_horizon_check/,
      'a forecast has a horizon',
    );
    await down(db.knex);
    assert.equal(await db.knex.schema.hasTable('forecast_fits'), false);
    await up(db.knex);
    assert.deepEqual(await forecastKeys(), seeded);
  });
});
