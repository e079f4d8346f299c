/**
 * Guessing bounded in throughput, not only slowed per request: at most VERIFICATIONS_PER_ACCOUNT
 * sign-ins of one account are checked at a time (the rest 429 with Retry-After), and the
 * per-address limit counts an attempt before it answers, so attempts in parallel cannot overshoot
 * it. A failed sign-in's audit row keeps what was typed only when it names an account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client, type Reply } from '../testing/http.js';
import { IDENTITY_BUDGET, UNKNOWN_IDENTIFIER, VERIFICATIONS_PER_ACCOUNT } from './login-service.js';

const PER_ADDRESS = 100; // assembly.ts: login-address
const from = (server: TestServer, address: string) => new Client(server.url, { 'x-forwarded-for': address });
const tally = (replies: Reply[]) => ({
  401: replies.filter((reply) => reply.status === 401).length,
  429: replies.filter((reply) => reply.status === 429).length,
});

describe('sign-in hardening', () => {
  let db: TestDatabase;
  let server: TestServer;

  before(async () => {
    db = await createTestDatabase();
    // a delay long enough that the first guesses still wait while the rest arrive
    server = await startTestServer(testConfig(db.url), { loginFailureDelayMs: 250 });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('checks at most a few guesses of one account at a time, however many arrive at once', async (t) => {
    const owner = await createAccount(db.knex, { email: 'parallel@example.com' });
    // spend the account's budget: from here on every failure waits (250 ms doubled per failure)
    for (let n = 1; n <= IDENTITY_BUDGET; n++)
      assert.equal((await from(server, `198.51.100.${n}`).signIn(owner.email, 'wrong')).status, 401);

    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, n) => from(server, `203.0.113.${n + 1}`).signIn(owner.email, `guess ${n}`)),
    );
    const elapsed = Date.now() - started;
    const counts = tally(replies);
    t.diagnostic(`100 guesses at once: ${counts[401]} × 401, ${counts[429]} × 429 in ${elapsed} ms`);
    assert.equal(counts[401] + counts[429], 100);
    assert.ok(counts[401] <= 2 * VERIFICATIONS_PER_ACCOUNT, `${counts[401]} guesses were checked`);
    for (const refused of replies.filter((reply) => reply.status === 429)) {
      assert.equal(refused.body.error, 'Too many sign-ins to this account at once: try again in a moment');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    }

    // once the guesses are answered, the owner gets in: nothing stays taken
    assert.equal((await from(server, '192.0.2.77').signIn(owner.email, owner.password)).status, 200);
  });

  it('refuses failures from one address past its limit even when they arrive 20 at a time', async (t) => {
    // ten failures first, so that a batch of 20 straddles the limit (90 + 20)
    const replies: Reply[] = [];
    for (let n = 0; n < 10; n++) replies.push(await from(server, '192.0.2.10').signIn(`early-${n}@example.com`, 'x'));
    for (let batch = 0; batch < 7; batch++) {
      replies.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, n) =>
            from(server, '192.0.2.10').signIn(`nobody-${batch}-${n}@example.com`, 'wrong'),
          ),
        )),
      );
    }
    const counts = tally(replies);
    t.diagnostic(`10 failures, then 140 20 at a time: ${counts[401]} × 401, ${counts[429]} × 429`);
    assert.deepEqual(counts, { 401: PER_ADDRESS, 429: 150 - PER_ADDRESS });
    // the limit still never refuses a right password it has not counted: another address signs in
    const account = await createAccount(db.knex);
    assert.equal((await from(server, '192.0.2.11').signIn(account.email, account.password)).status, 200);
  });

  it('keeps the identifier of a failed sign-in in the audit log only when it names an account', async () => {
    const account = await createAccount(db.knex, { email: 'typed@example.com' });
    const client = from(server, '192.0.2.20');
    assert.equal((await client.signIn('Typed@example.com', 'wrong password')).status, 401);
    assert.equal((await client.signIn('hunter2-my-password', 'whatever')).status, 401);
    const rows = await db
      .knex('audit_log')
      .where({ action: 'auth.sign_in_failed', address: '192.0.2.20' })
      .orderBy('id')
      .select('actor_name');
    assert.deepEqual(
      rows.map((row) => row.actor_name),
      [account.email, UNKNOWN_IDENTIFIER],
    );
    const anywhere = await db
      .knex('audit_log')
      .whereRaw('actor_name ILIKE ?', ['%hunter2%'])
      .count<{ count: string }[]>();
    assert.equal(Number(anywhere[0]?.count), 0);
  });
});
