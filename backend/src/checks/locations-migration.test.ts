/**
 * Migration 0029: a server-run check's state becomes its "argus" location's, so a check that was
 * DOWN before the upgrade stays DOWN after it (not PENDING until its places agree again); a paused
 * or never run check gets no location row; and it goes down cleanly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0029_check_locations.js';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

describe('migration 0029_check_locations', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  async function check(state: string, lastResult: Record<string, unknown> | null): Promise<number> {
    const customerId = await createCustomer(db.knex, `Customer ${state}`);
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: customerId, name: `check ${state}`, kind: 'check', offline_alerts: false })
      .returning<{ id: number }[]>('id');
    const id = (system as { id: number }).id;
    await db.knex('checks').insert({
      id,
      type: 'tcp',
      settings: JSON.stringify({ type: 'tcp', host: 'shop.example.net', port: 443 }),
      interval_s: 60,
      timeout_s: 10,
      retries: 1,
      retry_interval_s: 20,
      state,
      failures: state === 'DOWN' ? 2 : 0,
      last_result: lastResult ? JSON.stringify(lastResult) : null,
    });
    return id;
  }

  it("carries a server-run check's state over as its argus location's", async () => {
    await down(db.knex);
    const at = '2026-11-20T11:59:00.000Z';
    const downCheck = await check('DOWN', { at, up: false, reason: 'connection refused' });
    await check('PAUSED', { at, up: true, reason: null });
    await check('PENDING', null);
    await up(db.knex);
    const rows = await db.knex('check_locations').select('check_id', 'location', 'state', 'failures', 'at');
    assert.deepEqual(
      rows.map((r: { check_id: number; location: string; state: string; failures: number; at: Date }) => [
        r.check_id,
        r.location,
        r.state,
        r.failures,
        r.at.toISOString(),
      ]),
      [[downCheck, 'argus', 'DOWN', 2, at]],
    );
    assert.equal((await db.knex('checks').where({ id: downCheck }).first('quorum')).quorum, null);
    await assert.rejects(
      db.knex('check_locations').insert({ check_id: downCheck, location: 'elsewhere', state: 'UP', at }),
      /check_locations_location_check/,
      'a location is the server or an agent',
    );
    await down(db.knex);
    assert.equal((await db.knex.raw("SELECT to_regclass('check_locations') AS t")).rows[0].t, null);
    await up(db.knex);
  });
});
