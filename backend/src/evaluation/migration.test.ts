import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0007_evaluation_state.js';
import * as systemLatest from '../../../db/migrations/0018_system_latest.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

const TABLES = [
  'alert_notifications',
  'alert_pending',
  'evaluation_event_holds',
  'evaluation_seen_events',
  'evaluation_uptime',
];

describe('migration 0007_evaluation_state', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  const tables = async () =>
    (await db.knex('pg_tables').where({ schemaname: 'public' }).whereIn('tablename', TABLES))
      .map((row: { tablename: string }) => row.tablename)
      .sort();
  const indexes = async () =>
    (
      await db
        .knex('pg_indexes')
        .whereIn('indexname', ['alerts_open_system_idx', 'metric_latest_uptime_idx'])
        .select('indexname')
    ).length;

  it('goes down and up again cleanly (with 0018, which dropped the uptime index, rolled back around it)', async () => {
    await systemLatest.down(db.knex);
    assert.deepEqual(await tables(), TABLES);
    assert.equal(await indexes(), 2);
    await down(db.knex);
    assert.deepEqual(await tables(), []);
    assert.equal(await indexes(), 0);
    await up(db.knex);
    assert.deepEqual(await tables(), TABLES);
    assert.equal(await indexes(), 2);
    await systemLatest.up(db.knex);
  });
});
