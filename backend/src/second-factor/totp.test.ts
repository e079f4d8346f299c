import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import { FakeClock } from '../lib/clock.js';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';

describe('TOTP second factor', () => {
  let db: TestDatabase;
  let server: TestServer;
  const clock = new FakeClock(new Date('2026-11-22T12:00:00Z'));
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(
      testConfig(db.url, { SETTINGS_ENCRYPTION_KEY: 'totp-test-settings-key-0123456789abcdef' }),
      {
        clock,
      },
    );
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  const code = (secret: string, offsetSeconds = 0) =>
    generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) + offsetSeconds });

  async function enrolled() {
    const account = await createAccount(db.knex);
    const browser = new Client(server.url);
    await browser.signIn(account.email, account.password);
    const setup = await browser.post('/api/account/totp/setup');
    assert.equal(setup.status, 200);
    assert.match(setup.body.otpauthUrl, /^otpauth:\/\/totp\/Argus:/);
    assert.match(setup.body.qrDataUrl, /^data:image\/png;base64,/);
    const secret: string = setup.body.secret;
    const wrong = await browser.post('/api/account/totp/confirm', {
      code: '000000' === (await code(secret)) ? '111111' : '000000',
    });
    assert.equal(wrong.status, 400);
    assert.equal((await browser.post('/api/account/totp/confirm', { code: await code(secret) })).status, 204);
    return { account, secret, browser };
  }

  it('enrols with a QR code, stores the secret encrypted, and asks for a code at sign-in', async () => {
    const { account, secret, browser: enrolledBrowser } = await enrolled();
    const again = await enrolledBrowser.post('/api/account/totp/setup');
    assert.equal(again.status, 409, 'an enrolled authenticator is not swapped without the password');
    assert.equal(again.body.code, 'totp_enabled');
    const row = await db.knex('users').where({ id: account.id }).first();
    assert.match(row.totp_secret, /^v1\.sek\./);
    assert.ok(!row.totp_secret.includes(secret));
    assert.equal(row.totp_pending_secret, null);

    clock.advance(60_000);
    const browser = new Client(server.url);
    const first = await browser.signIn(account.email, account.password);
    assert.deepEqual(first.body, { secondFactor: 'totp' });
    assert.equal(browser.cookie('argus.sid'), undefined, 'no session before the code');
    const wrong = await browser.post('/api/auth/login', {
      identifier: account.email,
      password: account.password,
      code: '12345',
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'Invalid code');
    assert.equal(wrong.body.code, 'invalid_code');
    const ok = await browser.post('/api/auth/login', {
      identifier: account.email,
      password: account.password,
      code: await code(secret),
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.user.totpEnabled, true);
  });

  it('refuses a code that was already used (replay), and accepts ±1 step', async () => {
    const { account, secret } = await enrolled();
    clock.advance(90_000);
    const used = await code(secret);
    const body = { identifier: account.email, password: account.password, code: used };
    assert.equal((await new Client(server.url).post('/api/auth/login', body)).status, 200);
    assert.equal((await new Client(server.url).post('/api/auth/login', body)).status, 401, 'replay refused');
    clock.advance(60_000);
    const previousStep = await code(secret, -30);
    assert.equal((await new Client(server.url).post('/api/auth/login', { ...body, code: previousStep })).status, 200);
  });

  it('"trust this device" skips the code on that browser only, until a password reset ends it', async () => {
    const { account, secret } = await enrolled();
    clock.advance(120_000);
    const browser = new Client(server.url);
    const trusted = await browser.post('/api/auth/login', {
      identifier: account.email,
      password: account.password,
      code: await code(secret),
      trustDevice: true,
    });
    assert.equal(trusted.status, 200);
    const cookie = trusted.headers.getSetCookie().find((c) => c.startsWith('argus.td=')) ?? '';
    assert.match(cookie, /httponly/i);
    assert.match(cookie, /samesite=lax/i);
    assert.doesNotMatch(cookie, /secure/i, 'not Secure outside production');
    const days = (Date.parse(/expires=([^;]+)/i.exec(cookie)?.[1] ?? '') - Date.now()) / 86_400_000;
    assert.ok(days > 29 && days <= 30, `${days} days`);
    await browser.post('/api/auth/logout');
    const again = await browser.signIn(account.email, account.password);
    assert.equal(again.status, 200);
    assert.ok(again.body.user, 'no code asked on the trusted browser');
    assert.deepEqual((await new Client(server.url).signIn(account.email, account.password)).body, {
      secondFactor: 'totp',
    });

    await db.knex('trusted_devices').where({ user_id: account.id }).delete(); // what a reset does
    await browser.post('/api/auth/logout');
    assert.deepEqual((await browser.signIn(account.email, account.password)).body, { secondFactor: 'totp' });
  });

  it('a secret the key no longer opens blocks the TOTP sign-in (logged), never crashes', async () => {
    const { account, secret } = await enrolled();
    await db.knex('users').where({ id: account.id }).update({ totp_secret: 'v1.sek.AAAAAAAAAAAAAAAA.AAAA' });
    clock.advance(150_000);
    const reply = await new Client(server.url).post('/api/auth/login', {
      identifier: account.email,
      password: account.password,
      code: await code(secret),
    });
    assert.equal(reply.status, 401);
    assert.ok(server.logs.messages().some((m) => m.includes('could not be decrypted')));
  });

  it('removes the authenticator with the password, and then signs in with the password alone', async () => {
    const { account, browser } = await enrolled();
    assert.equal((await browser.post('/api/account/totp/disable', { password: 'wrong password' })).status, 400);
    assert.equal((await browser.post('/api/account/totp/disable', { password: account.password })).status, 204);
    assert.ok((await new Client(server.url).signIn(account.email, account.password)).body.user);
  });
});
