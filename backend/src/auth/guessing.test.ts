/**
 * Guessing from many addresses: failures per account are counted across addresses. Past
 * IDENTITY_BUDGET each further password failure waits longer, but nobody is locked out; CODE_BUDGET
 * wrong second-factor codes close the code step of that account whatever the address; crossing
 * either budget mails the owner once. Addresses differ by X-Forwarded-For (its last entry counts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';
import { waitFor } from '../testing/net.js';
import { smtpSettingsOf, startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { CODE_BUDGET, IDENTITY_BUDGET, failureDelayMs } from './login-service.js';

const from = (server: TestServer, n: number) => new Client(server.url, { 'x-forwarded-for': `198.51.100.${n}` });

describe('the wait before a failed sign-in is answered', () => {
  it('grows per address from the third failure and per account past the budget, both capped', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 7, 50].map((n) => failureDelayMs(n, n, 100)),
      [0, 0, 100, 200, 1600, 6400],
    );
    // one failure from each of many addresses: only the account's count slows them
    const fromEverywhere = [1, IDENTITY_BUDGET, IDENTITY_BUDGET + 1, IDENTITY_BUDGET + 2, IDENTITY_BUDGET + 6, 1000];
    assert.deepEqual(
      fromEverywhere.map((n) => failureDelayMs(1, n, 100)),
      [0, 0, 200, 400, 6400, 6400],
    );
  });
});

describe('guessing one account from many addresses', () => {
  let db: TestDatabase;
  let server: TestServer;
  let sink: SmtpSink;
  const guessingMails = (to: string) =>
    sink.mails.filter(
      (m) => m.to.includes(to) && /^Argus: (someone is guessing|your password is known)/.test(m.subject),
    );

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink();
    server = await startTestServer(testConfig(db.url));
    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    const client = new Client(server.url);
    await client.signIn(admin.email, admin.password);
    const smtp = await client.put('/api/settings/smtp', smtpSettingsOf(sink));
    assert.equal(smtp.status, 200, JSON.stringify(smtp.body));
  });
  after(async () => {
    await server.stop();
    await sink.close();
    await db.drop();
  });

  it('slows 50 addresses guessing a password without locking the owner out, and mails the owner once', async () => {
    const owner = await createAccount(db.knex, { email: 'owner@example.com' });
    const answers: number[] = [];
    for (let n = 1; n <= 50; n++) {
      answers.push((await from(server, n).signIn(owner.email, 'not the password at all')).status);
    }
    assert.deepEqual([...new Set(answers)], [401], 'every guess is a plain failure: nobody is locked out');
    await waitFor(() => guessingMails(owner.email).length === 1, 10_000);
    const [mail] = guessingMails(owner.email);
    assert.equal(mail?.subject, 'Argus: someone is guessing your password');
    assert.match(mail!.text, new RegExp(`from ${IDENTITY_BUDGET + 1} network addresses`));
    assert.match(mail!.text, new RegExp(`${server.url}/account`));

    // the owner, from an address of their own, still gets in (to the e-mailed code step)
    const mine = from(server, 200);
    assert.deepEqual((await mine.signIn(owner.email, owner.password)).body, { secondFactor: 'email' });
    assert.equal(guessingMails(owner.email).length, 1, 'one mail an hour, however long the guessing goes on');
  });

  it('closes the code step after CODE_BUDGET wrong codes from any addresses, and mails the owner once', async () => {
    const owner = await createAccount(db.knex, { email: 'known-password@example.com' });
    const body = { identifier: owner.email, password: owner.password };
    for (let n = 1; n <= CODE_BUDGET; n++) {
      const wrong = await from(server, 100 + n).post('/api/auth/login', { ...body, code: '000000' });
      assert.equal(wrong.status, 401, `wrong code ${n}`);
    }
    const closed = await from(server, 150).post('/api/auth/login', { ...body, code: '123456' });
    assert.equal(closed.status, 429);
    assert.equal(closed.body.error, 'Too many wrong codes for this account: try again later');
    assert.ok(Number(closed.headers.get('retry-after')) > 60);
    // the first step too: no new code is mailed while the step is closed
    assert.equal((await from(server, 151).signIn(owner.email, owner.password)).status, 429);

    await waitFor(() => guessingMails(owner.email).length === 1, 10_000);
    const [mail] = guessingMails(owner.email);
    assert.equal(mail?.subject, 'Argus: your password is known to someone');
    assert.match(mail!.text, /Change your password now/);

    // a stranger without the password closes nothing: another account is untouched
    const other = await createAccount(db.knex);
    assert.deepEqual((await from(server, 152).signIn(other.email, other.password)).body, { secondFactor: 'email' });
  });
});
