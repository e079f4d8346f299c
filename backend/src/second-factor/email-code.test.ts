import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';
import { smtpSettingsOf, startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';

describe('with SMTP enabled: e-mailed sign-in codes and password reset, end to end', () => {
  let db: TestDatabase;
  let server: TestServer;
  let sink: SmtpSink;
  let admin: Client;
  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink();
    server = await startTestServer(testConfig(db.url));
    const account = await createAccount(db.knex, { role: 'ADMIN' });
    admin = new Client(server.url);
    assert.equal((await admin.signIn(account.email, account.password)).status, 200, 'no SMTP: the password alone');
    const put = await admin.put('/api/settings/smtp', smtpSettingsOf(sink));
    assert.equal(put.status, 200, JSON.stringify(put.body));
  });
  after(async () => {
    await server.stop();
    await sink.close();
    await db.drop();
  });

  const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';

  it('offers the reset link on the login screen', async () => {
    assert.deepEqual((await new Client(server.url).get('/api/auth/options')).body, {
      setupNeeded: false,
      mailEnabled: true,
    });
  });

  it('asks for an e-mailed code, accepts it once, refuses a wrong one', async () => {
    const account = await createAccount(db.knex);
    const browser = new Client(server.url);
    const mailsBefore = sink.mails.length;
    assert.deepEqual((await browser.signIn(account.email, account.password)).body, { secondFactor: 'email' });
    const mail = await sink.nthMail(mailsBefore + 1);
    assert.deepEqual(mail.to, [account.email]);
    const code = codeIn(mail.text);
    assert.match(code, /^\d{6}$/);
    const body = { identifier: account.email, password: account.password };
    const wrong = code === '000000' ? '111111' : '000000';
    assert.equal((await browser.post('/api/auth/login', { ...body, code: wrong })).status, 401);
    const ok = await browser.post('/api/auth/login', { ...body, code });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await new Client(server.url).post('/api/auth/login', { ...body, code })).status, 401, 'single use');
  });

  it('stops accepting an e-mailed code after 5 wrong tries', async () => {
    const account = await createAccount(db.knex);
    const mailsBefore = sink.mails.length;
    await new Client(server.url).signIn(account.email, account.password);
    const code = codeIn((await sink.nthMail(mailsBefore + 1)).text);
    const body = { identifier: account.email, password: account.password };
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await new Client(server.url).post('/api/auth/login', { ...body, code: wrong });
    assert.equal((await new Client(server.url).post('/api/auth/login', { ...body, code })).status, 401);
  });

  it('mails a reset link that works once and ends the sessions', async () => {
    const account = await createAccount(db.knex);
    const mailsBefore = sink.mails.length;
    const forgot = await new Client(server.url).post('/api/auth/password/forgot', { email: account.email });
    assert.equal(forgot.status, 202);
    const mail = await sink.nthMail(mailsBefore + 1);
    const link = new RegExp(`${server.url}/reset-password\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
    assert.ok(link?.[1], mail.text);
    const reset = (password: string) =>
      new Client(server.url).post('/api/auth/password/reset', { token: link[1], password });
    assert.equal((await reset('a completely new password')).status, 204);
    assert.equal((await reset('yet another new password')).status, 400);
  });

  it('answers 202 for an unknown address, and stops mailing one address after 3 requests an hour', async () => {
    const account = await createAccount(db.knex);
    assert.equal(
      (await new Client(server.url).post('/api/auth/password/forgot', { email: 'nobody@example.com' })).status,
      202,
    );
    const mailsBefore = sink.mails.length;
    for (let i = 0; i < 5; i++) {
      const from = new Client(server.url, { 'x-forwarded-for': `198.51.100.${100 + i}` });
      assert.equal((await from.post('/api/auth/password/forgot', { email: account.email })).status, 202);
    }
    await sink.nthMail(mailsBefore + 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(sink.mails.filter((m) => m.to.includes(account.email)).length, 3);
  });
});
