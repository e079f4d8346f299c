import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createAccount } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createHousekeepingRepo } from './repo.js';
import { createHousekeeping } from './service.js';

describe('housekeeping', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('removes expired sessions, trusted devices, codes and reset links, and keeps live ones', async () => {
    const clock = new FakeClock(new Date('2026-11-22T12:00:00Z'));
    const { id } = await createAccount(db.knex);
    const past = new Date('2026-11-22T11:00:00Z');
    const future = new Date('2026-11-23T12:00:00Z');
    await db.knex('sessions').insert([
      { id: 'idle-expired', user_id: id, expires_at: past, absolute_expires_at: future },
      { id: 'absolute-expired', user_id: id, expires_at: future, absolute_expires_at: past },
      { id: 'live', user_id: id, expires_at: future, absolute_expires_at: future },
    ]);
    await db.knex('trusted_devices').insert([
      { user_id: id, token_hash: 'a', expires_at: past },
      { user_id: id, token_hash: 'b', expires_at: future },
    ]);
    await db.knex('email_codes').insert({ user_id: id, code_hash: 'x', expires_at: past });
    await db.knex('password_reset_tokens').insert({ user_id: id, token_hash: 'r', expires_at: past });

    const logs = captureLogger();
    await createHousekeeping({ repo: createHousekeepingRepo(db.knex), clock, log: logs.log }).runOnce();

    assert.deepEqual(await db.knex('sessions').pluck('id'), ['live']);
    assert.deepEqual(await db.knex('trusted_devices').pluck('token_hash'), ['b']);
    assert.equal((await db.knex('email_codes')).length, 0);
    assert.equal((await db.knex('password_reset_tokens')).length, 0);
    assert.deepEqual(logs.lines().at(-1)?.['sessions'], 2);
  });

  it('removes agent events older than the raw retention, and keeps newer ones', async () => {
    const clock = new FakeClock(new Date('2026-11-22T12:00:00Z'));
    const [customer] = await db.knex('customers').insert({ name: 'Events' }).returning('id');
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: (customer as { id: number }).id, name: 'e1' })
      .returning('id');
    const systemId = (system as { id: number }).id;
    const event = (receivedAt: string, message: string) => ({
      system_id: systemId,
      time: receivedAt,
      type: 'system.reboot',
      severity: 'INFO',
      message,
      received_at: receivedAt,
    });
    await db
      .knex('agent_events')
      .insert([event('2026-11-14T12:00:00Z', 'old'), event('2026-11-16T12:00:00Z', 'recent')]);
    const logs = captureLogger();
    await createHousekeeping({
      repo: createHousekeepingRepo(db.knex),
      clock,
      log: logs.log,
      agentEventRetentionMs: 7 * 86_400_000,
    }).runOnce();
    assert.deepEqual(await db.knex('agent_events').pluck('message'), ['recent']);
  });
});
