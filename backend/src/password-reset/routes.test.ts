import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { errorMiddleware } from '../http/error-middleware.js';
import { FakeClock } from '../lib/clock.js';
import { createPasswordHasher } from '../lib/password-hasher.js';
import { createSecretBox } from '../lib/secret-box.js';
import { createMailer } from '../mail/smtp-mailer.js';
import { createSmtpSettingsService } from '../settings/smtp/service.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { createOriginRule } from '../http/origin.js';
import { mountRoutes } from '../http/route.js';
import { passwordResetRoutes } from './routes.js';
import { createPasswordResetService, type PasswordResetService } from './service.js';

const AUTH_URL = 'https://argus.example.com';
// the sink holds every message this long: an answer that waited for SMTP would show it
const SMTP_DELAY_MS = 1500;

describe('POST /api/auth/password/forgot and /reset over HTTP', () => {
  let db: TestDatabase;
  let sink: SmtpSink;
  let server: http.Server;
  let base: string;
  let resets: PasswordResetService;
  const clock = new FakeClock(new Date());
  const hasher = createPasswordHasher(4);
  const logs = captureLogger();
  const smtp = () =>
    createSmtpSettingsService({
      db: db.knex,
      audit: auditTrailOn(db.knex),
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'y'.repeat(40) }, logs.log),
    });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: AUTH_URL, ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
  }

  async function setMail(enabled: boolean) {
    await smtp().update({
      enabled,
      host: '127.0.0.1',
      port: sink.port,
      encryption: 'none',
      user: '',
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
    });
  }

  async function linkFromMail(nth: number): Promise<URL> {
    const mail = await sink.nthMail(nth);
    const link = /https:\/\/\S+/.exec(mail.text)?.[0];
    assert.ok(link, mail.text);
    return new URL(link);
  }

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink({ delayMs: SMTP_DELAY_MS });
    const settings = smtp();
    resets = createPasswordResetService({
      db: db.knex,
      clock,
      mailer: createMailer({ smtp: settings, log: logs.log }),
      hasher,
      authUrl: AUTH_URL,
      log: logs.log,
      audit: auditTrailOn(db.knex),
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(logs.log));
    app.use(koaBody());
    const router = mountRoutes(passwordResetRoutes, { resets, origins: createOriginRule(AUTH_URL) });
    app.use(router.routes()).use(router.allowedMethods());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await resets.settled();
    await new Promise((resolve) => server.close(resolve));
    await hasher.close();
    await sink.close();
    await db.drop();
  });
  beforeEach(async () => {
    await db.knex('users').delete();
    clock.set(new Date());
  });

  async function insertUser(email: string): Promise<number> {
    const [row] = await db
      .knex('users')
      .insert({ email, name: 'Ada', role: 'ADMIN', password_hash: 'old-hash' })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  it('answers 503 "Mail is not configured" while SMTP is disabled', async () => {
    await setMail(false);
    await insertUser('ada@example.com');
    const answer = await post('/api/auth/password/forgot', { email: 'ada@example.com' });
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error, 'Mail is not configured');
  });

  it('answers 202 {} at once for a known and an unknown address alike', async () => {
    await setMail(true);
    await insertUser('ada@example.com');
    const count = sink.mails.length;
    const known = await post('/api/auth/password/forgot', { email: 'ada@example.com' });
    const unknown = await post('/api/auth/password/forgot', { email: 'nobody@example.com' });
    for (const answer of [known, unknown]) {
      assert.equal(answer.status, 202);
      assert.deepEqual(answer.body, {});
      assert.ok(answer.ms < SMTP_DELAY_MS / 2, `answered in ${Math.round(answer.ms)} ms, not after the SMTP exchange`);
    }
    await resets.settled();
    assert.equal(sink.mails.length, count + 1, 'one mail, to the known address');
  });

  it('resets with the mailed link once, ending the sessions and trusted devices', async () => {
    await setMail(true);
    const id = await insertUser('ada@example.com');
    const expires = new Date(Date.now() + 86_400_000);
    await db
      .knex('sessions')
      .insert({ id: 'session-1', user_id: id, expires_at: expires, absolute_expires_at: expires });
    await db.knex('trusted_devices').insert({ user_id: id, token_hash: 'device-1', expires_at: expires });
    const count = sink.mails.length;
    assert.equal((await post('/api/auth/password/forgot', { email: 'ada@example.com' })).status, 202);
    const link = await linkFromMail(count + 1);
    assert.equal(`${link.origin}${link.pathname}`, `${AUTH_URL}/reset-password`);
    const token = link.searchParams.get('token');

    const done = await post('/api/auth/password/reset', { token, password: 'correct horse battery' });
    assert.equal(done.status, 204);
    const user = await db.knex('users').where({ id }).first('password_hash');
    assert.equal(await hasher.verify('correct horse battery', user.password_hash), true);
    assert.equal((await db.knex('sessions').where({ user_id: id })).length, 0);
    assert.equal((await db.knex('trusted_devices').where({ user_id: id })).length, 0);

    const again = await post('/api/auth/password/reset', { token, password: 'another good passphrase' });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'This reset link is invalid or has expired');
  });

  it('answers 400 for an expired link, and 400 naming the field for a bad password or missing input', async () => {
    await setMail(true);
    await insertUser('ada@example.com');
    const count = sink.mails.length;
    await post('/api/auth/password/forgot', { email: 'ada@example.com' });
    const token = (await linkFromMail(count + 1)).searchParams.get('token');

    const weak = await post('/api/auth/password/reset', { token, password: 'short' });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.details.field, 'password');
    assert.equal(
      (await post('/api/auth/password/reset', { password: 'correct horse battery' })).body.details.field,
      'token',
    );
    assert.equal((await post('/api/auth/password/forgot', {})).body.details.field, 'email');

    clock.advance(60 * 60 * 1000 + 1);
    const expired = await post('/api/auth/password/reset', { token, password: 'correct horse battery' });
    assert.equal(expired.status, 400);
    assert.equal(expired.body.error, 'This reset link is invalid or has expired');
  });

  it('refuses a request from another site', async () => {
    await setMail(true);
    await insertUser('ada@example.com');
    const count = sink.mails.length;
    const foreign = { origin: 'https://evil.example' };
    assert.equal((await post('/api/auth/password/forgot', { email: 'ada@example.com' }, foreign)).status, 403);
    assert.equal(
      (await post('/api/auth/password/reset', { token: 'x', password: 'correct horse battery' }, foreign)).status,
      403,
    );
    await resets.settled();
    assert.equal(sink.mails.length, count);
  });
});
