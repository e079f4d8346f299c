import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSecretBox } from '../lib/secret-box.js';
import { createSmtpSettingsService, type SmtpSettingsService } from '../settings/smtp/service.js';
import type { SmtpSettingsInput } from '../../../contracts/settings.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger, type CapturedLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { createMailer } from './smtp-mailer.js';

const AUTH_SECRET = 'auth-secret-for-mailer-tests-0123456789';
const SMTP_PASSWORD = 'sink-password-Zq81';

describe('SMTP mailer', () => {
  let db: TestDatabase;
  let sink: SmtpSink;
  let logs: CapturedLogger;
  let smtp: SmtpSettingsService;

  function settings(overrides: Partial<SmtpSettingsInput> = {}): SmtpSettingsInput {
    return {
      enabled: true,
      host: '127.0.0.1',
      port: sink.port,
      encryption: 'none',
      user: 'argus',
      password: SMTP_PASSWORD,
      fromAddress: 'argus@example.com',
      fromName: 'Argus Monitoring',
      ...overrides,
    };
  }

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink({ auth: { user: 'argus', password: SMTP_PASSWORD } });
  });
  after(async () => {
    await sink.close();
    await db.drop();
  });
  beforeEach(() => {
    logs = captureLogger();
    smtp = createSmtpSettingsService({
      db: db.knex,
      audit: auditTrailOn(db.knex),
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: AUTH_SECRET }, logs.log),
    });
  });

  it('sends through a server that requires a login, with the configured sender', async () => {
    await smtp.update(settings());
    const before = sink.mails.length;
    await createMailer({ smtp, log: logs.log }).send({
      to: 'ops@example.com',
      subject: 'Disk full',
      text: 'web-01: /var is at 97%',
    });
    const mail = await sink.nthMail(before + 1);
    assert.equal(mail.user, 'argus');
    assert.equal(mail.from, 'argus@example.com');
    assert.deepEqual(mail.to, ['ops@example.com']);
    assert.match(mail.headers, /^From: "?Argus Monitoring"? <argus@example\.com>$/m);
    assert.match(mail.headers, /^Subject: Disk full$/m);
    assert.match(mail.text, /web-01: \/var is at 97%/);
  });

  it('says the server refused the login, without the password, when the credentials are wrong', async () => {
    await smtp.update(settings({ password: 'wrong-password-Xy77' }));
    const before = sink.mails.length;
    const mailer = createMailer({ smtp, log: logs.log });
    await assert.rejects(mailer.send({ to: 'ops@example.com', subject: 's', text: 't' }), (error: Error) => {
      assert.match(error.message, /SMTP server 127\.0\.0\.1:\d+ refused the login/);
      assert.ok(!error.message.includes('wrong-password-Xy77'));
      return true;
    });
    assert.equal(sink.mails.length, before);
    assert.ok(logs.lines().length > 0, 'the failure is logged');
    assert.ok(logs.lines().every((line) => !JSON.stringify(line).includes('wrong-password-Xy77')));
  });

  it('throws and sends nothing while SMTP is disabled', async () => {
    await smtp.update(settings({ enabled: false }));
    const before = sink.mails.length;
    const mailer = createMailer({ smtp, log: logs.log });
    assert.equal(await mailer.isEnabled(), false);
    await assert.rejects(mailer.send({ to: 'ops@example.com', subject: 's', text: 't' }), /SMTP is not enabled/);
    assert.equal(sink.mails.length, before);
  });

  it('refuses to send in clear when STARTTLS is required and the server does not offer it', async () => {
    await smtp.update(settings({ encryption: 'starttls' }));
    const before = sink.mails.length;
    await assert.rejects(
      createMailer({ smtp, log: logs.log }).send({ to: 'ops@example.com', subject: 's', text: 't' }),
      /TLS|STARTTLS/,
    );
    assert.equal(sink.mails.length, before, 'nothing went out unencrypted');
  });

  it('speaks TLS from the first byte for "tls", so a plain server is refused', async () => {
    await smtp.update(settings({ encryption: 'tls' }));
    const before = sink.mails.length;
    await assert.rejects(
      createMailer({ smtp, log: logs.log }).send({ to: 'ops@example.com', subject: 's', text: 't' }),
      /TLS with the SMTP server 127\.0\.0\.1:\d+ failed \(encryption "tls"\)/,
    );
    assert.equal(sink.mails.length, before);
  });

  it('names the server it could not reach', async () => {
    const port = await freePort();
    await smtp.update(settings({ port }));
    await assert.rejects(
      createMailer({ smtp, log: logs.log }).send({ to: 'ops@example.com', subject: 's', text: 't' }),
      new RegExp(`Could not talk to the SMTP server 127\\.0\\.0\\.1:${port}`),
    );
  });

  it('stops sending, with a clear error, when the stored password no longer opens', async () => {
    await smtp.update(settings());
    const otherKey = createSecretBox(
      { settingsEncryptionKey: 'a-different-key-0123456789abcdefghij', authSecret: 'x'.repeat(40) },
      logs.log,
    );
    const lostKey = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box: otherKey });
    const before = sink.mails.length;
    await assert.rejects(
      createMailer({ smtp: lostKey, log: logs.log }).send({ to: 'ops@example.com', subject: 's', text: 't' }),
      /SMTP password could not be decrypted/,
    );
    assert.equal(sink.mails.length, before);
  });

  it('picks up changed settings on the next send, without a restart', async () => {
    const second = await startSmtpSink();
    try {
      const mailer = createMailer({ smtp, log: logs.log });
      await smtp.update(settings({ port: second.port, user: '', password: '' }));
      await mailer.send({ to: 'a@example.com', subject: 'to the second server', text: 't' });
      assert.equal((await second.nthMail(1)).user, null, 'no login without a user');
    } finally {
      await second.close();
    }
  });

  it('test-sends with the saved settings even while SMTP is switched off', async () => {
    await smtp.update(settings({ enabled: false }));
    const before = sink.mails.length;
    await createMailer({ smtp, log: logs.log }).sendTest('admin@example.com');
    const mail = await sink.nthMail(before + 1);
    assert.deepEqual(mail.to, ['admin@example.com']);
    assert.match(mail.headers, /^Subject: Argus test message$/m);
  });
});
