import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0003_ingest.js';
import * as systemLatest from '../../../db/migrations/0018_system_latest.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

describe('migration 0003_ingest', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  const tables = async () =>
    (
      await db.knex('pg_tables').where({ schemaname: 'public' }).whereIn('tablename', ['metric_latest', 'agent_events'])
    ).map((row: { tablename: string }) => row.tablename);

  it('goes down and up again cleanly (with 0018, which made metric_latest a view, rolled back around it)', async () => {
    await systemLatest.down(db.knex);
    assert.deepEqual((await tables()).sort(), ['agent_events', 'metric_latest']);
    await down(db.knex);
    assert.deepEqual(await tables(), []);
    await up(db.knex);
    assert.deepEqual((await tables()).sort(), ['agent_events', 'metric_latest']);
    await systemLatest.up(db.knex);
  });

  it('removes a system’s latest values and events with the system', async () => {
    const [customer] = await db.knex('customers').insert({ name: 'm-test' }).returning<{ id: number }[]>('id');
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: customer?.id, name: 's' })
      .returning<{ id: number }[]>('id');
    const now = new Date();
    await db.knex('metric_latest').insert({ system_id: system?.id, name: 'cpu.usage_pct', time: now, value: 1 });
    await db.knex('agent_events').insert({ system_id: system?.id, time: now, type: 'system.reboot', severity: 'INFO' });
    await db.knex('systems').where({ id: system?.id }).delete();
    assert.equal((await db.knex('metric_latest').where({ system_id: system?.id })).length, 0);
    assert.equal((await db.knex('agent_events').where({ system_id: system?.id })).length, 0);
  });
});
