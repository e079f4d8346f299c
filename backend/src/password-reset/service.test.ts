import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import { after, before, beforeEach, describe, it } from 'node:test';
import { statusOf } from '../http/errors.js';
import { Invalid, Unavailable } from '../lib/errors.js';
import { FakeClock } from '../lib/clock.js';
import { sha256 } from '../lib/crypto.js';
import { createPasswordHasher } from '../lib/password-hasher.js';
import { createSecretBox } from '../lib/secret-box.js';
import { createMailer } from '../mail/smtp-mailer.js';
import { createSmtpSettingsService, type SmtpSettingsService } from '../settings/smtp/service.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger, type CapturedLogger } from '../testing/logger.js';
import { startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { createPasswordResetService, RESET_LINK_INVALID } from './service.js';

const AUTH_URL = 'https://argus.example.com';
const NEW_PASSWORD = 'a brand new passphrase';

describe('password reset service', () => {
  let db: TestDatabase;
  let sink: SmtpSink;
  let smtp: SmtpSettingsService;
  let logs: CapturedLogger;
  let clock: FakeClock;
  const hasher = createPasswordHasher(4);

  function service() {
    return createPasswordResetService({
      db: db.knex,
      clock,
      mailer: createMailer({ smtp, log: logs.log }),
      hasher,
      authUrl: AUTH_URL,
      log: logs.log,
      audit: auditTrailOn(db.knex),
    });
  }

  async function enableMail(overrides: { port?: number } = {}) {
    await smtp.update({
      enabled: true,
      host: '127.0.0.1',
      port: overrides.port ?? sink.port,
      encryption: 'none',
      user: '',
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
    });
  }

  async function insertUser(email: string, extra: Record<string, unknown> = {}): Promise<number> {
    const [row] = await db
      .knex('users')
      .insert({ email, name: email, role: 'OPERATOR', password_hash: 'old-hash', ...extra })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  /** Asks for a link and returns the token from the mail that arrives. */
  async function tokenFromMail(email: string): Promise<string> {
    const count = sink.mails.length;
    const resets = service();
    await resets.requestReset(email);
    await resets.settled();
    const mail = await sink.nthMail(count + 1);
    const match = /https:\/\/argus\.example\.com\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
    assert.ok(match, mail.text);
    return match[1] as string;
  }

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink();
  });
  after(async () => {
    await hasher.close();
    await sink.close();
    await db.drop();
  });
  beforeEach(async () => {
    logs = captureLogger();
    clock = new FakeClock(new Date());
    smtp = createSmtpSettingsService({
      db: db.knex,
      audit: auditTrailOn(db.knex),
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'x'.repeat(40) }, logs.log),
    });
    await db.knex('users').delete();
    await db.knex('app_settings').where({ key: 'smtp' }).delete();
  });

  it('refuses with 503 "Mail is not configured" while SMTP is disabled, and sends nothing', async () => {
    await insertUser('ada@example.com');
    const count = sink.mails.length;
    await assert.rejects(service().requestReset('ada@example.com'), (error: unknown) => {
      assert.ok(error instanceof Unavailable);
      assert.equal(statusOf(error), 503);
      assert.equal(error.message, 'Mail is not configured');
      return true;
    });
    assert.equal(sink.mails.length, count);
  });

  it('mails a one-hour link to the stored address and keeps only its hash', async () => {
    await enableMail();
    const id = await insertUser('Ada@example.com');
    const count = sink.mails.length;
    const token = await tokenFromMail('ADA@EXAMPLE.COM');
    assert.deepEqual(sink.mails[count]?.to, ['Ada@example.com'], 'the stored address, not the typed one');
    assert.ok(Buffer.from(token, 'base64url').length >= 32, '256 bits');
    const rows = await db.knex('password_reset_tokens').where({ user_id: id });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].token_hash, sha256(token));
    assert.equal(new Date(rows[0].expires_at).getTime(), clock.now().getTime() + 3_600_000);
  });

  it('sends nothing for an unknown or disabled account, and leaves no token', async () => {
    await enableMail();
    await insertUser('off@example.com', { disabled: true });
    const count = sink.mails.length;
    const resets = service();
    await resets.requestReset('nobody@example.com');
    await resets.requestReset('off@example.com');
    await resets.settled();
    assert.equal(sink.mails.length, count);
    assert.equal((await db.knex('password_reset_tokens').count<{ count: string }[]>('* as count'))[0]?.count, '0');
  });

  it('sends nothing to an account single sign-on created (no password of its own), as for an unknown address', async () => {
    await enableMail();
    const id = await insertUser('sso@example.com', {
      local_password: false,
      oidc_issuer: 'https://idp.example.com',
      oidc_subject: 'sso-user',
    });
    const linked = await insertUser('linked@example.com', {
      oidc_issuer: 'https://idp.example.com',
      oidc_subject: 'linked-user',
    });
    const count = sink.mails.length;
    const resets = service();
    // the same call returns the same way for both: nothing in the answer tells them apart
    assert.equal(await resets.requestReset('sso@example.com'), await resets.requestReset('nobody@example.com'));
    await resets.settled();
    assert.equal(sink.mails.length, count);
    assert.equal((await db.knex('password_reset_tokens').where({ user_id: id })).length, 0);
    // an account linked to the provider that also has a password of its own still gets its link
    await tokenFromMail('linked@example.com');
    assert.equal((await db.knex('password_reset_tokens').where({ user_id: linked })).length, 1);
  });

  it('logs a failed send instead of reporting it', async () => {
    await enableMail({ port: 1 });
    await insertUser('ada@example.com');
    const resets = service();
    await resets.requestReset('ada@example.com');
    await resets.settled();
    assert.ok(logs.messages().includes('Password reset mail failed'));
  });

  it('sets the password once, ends sessions and trusted devices, and keeps the authenticator', async () => {
    await enableMail();
    const id = await insertUser('ada@example.com', { totp_secret: 'sealed-totp' });
    const other = await insertUser('bob@example.com');
    const expires = new Date(Date.now() + 86_400_000);
    for (const [sid, userId] of [
      ['s1', id],
      ['s2', id],
      ['s3', other],
    ] as const) {
      await db.knex('sessions').insert({ id: sid, user_id: userId, expires_at: expires, absolute_expires_at: expires });
    }
    await db.knex('trusted_devices').insert({ user_id: id, token_hash: 'device-hash', expires_at: expires });
    const token = await tokenFromMail('ada@example.com');

    await service().resetPassword(token, NEW_PASSWORD);
    const user = await db.knex('users').where({ id }).first();
    assert.equal(await hasher.verify(NEW_PASSWORD, user.password_hash), true);
    assert.equal(user.totp_secret, 'sealed-totp', 'a reset does not skip the second factor');
    assert.deepEqual(await db.knex('sessions').pluck('id'), ['s3'], "only the other account's session is left");
    assert.equal((await db.knex('trusted_devices').where({ user_id: id })).length, 0);
    const reset = await db.knex('audit_log').where({ action: 'password.reset' });
    assert.equal(reset.length, 1, 'one audit row, with the account as actor');
    assert.deepEqual([reset[0].actor_type, Number(reset[0].actor_id)], ['user', id]);
    assert.ok(!JSON.stringify(await db.knex('audit_log').select('*')).includes(NEW_PASSWORD));
    assert.ok(!JSON.stringify(await db.knex('audit_log').select('*')).includes(token), 'nor the link');
    await assert.rejects(service().resetPassword(token, 'yet another passphrase'), { message: RESET_LINK_INVALID });
    assert.equal((await db.knex('audit_log').where({ action: 'password.reset' })).length, 1);
  });

  it('refuses an expired link, an unknown token and a superseded link', async () => {
    await enableMail();
    await insertUser('ada@example.com');
    const first = await tokenFromMail('ada@example.com');
    const second = await tokenFromMail('ada@example.com');
    await assert.rejects(service().resetPassword(first, NEW_PASSWORD), { message: RESET_LINK_INVALID });
    await assert.rejects(service().resetPassword('made-up-token', NEW_PASSWORD), { message: RESET_LINK_INVALID });
    clock.advance(3_600_001);
    await assert.rejects(service().resetPassword(second, NEW_PASSWORD), { message: RESET_LINK_INVALID });
  });

  it('refuses a password that breaks the rule, naming the field, and the link keeps working', async () => {
    await enableMail();
    await insertUser('ada@example.com', { username: 'ada' });
    const token = await tokenFromMail('ada@example.com');
    for (const bad of ['too short', 'x'.repeat(73), 'ADA@example.com']) {
      await assert.rejects(service().resetPassword(token, bad), (error) => {
        assert.ok(error instanceof Invalid);
        assert.deepEqual(error.details, { field: 'password' });
        return true;
      });
    }
    await service().resetPassword(token, NEW_PASSWORD);
  });

  it('refuses the link of an account disabled after it was sent', async () => {
    await enableMail();
    const id = await insertUser('ada@example.com');
    const token = await tokenFromMail('ada@example.com');
    await db.knex('users').where({ id }).update({ disabled: true });
    await assert.rejects(service().resetPassword(token, NEW_PASSWORD), { message: RESET_LINK_INVALID });
  });

  it('lets only one of two simultaneous uses of a link win', async () => {
    await enableMail();
    await insertUser('ada@example.com');
    const token = await tokenFromMail('ada@example.com');
    const results = await Promise.allSettled([
      service().resetPassword(token, 'first racing passphrase'),
      service().resetPassword(token, 'second racing passphrase'),
    ]);
    assert.deepEqual(results.map((result) => result.status).sort(), ['fulfilled', 'rejected']);
  });
});
