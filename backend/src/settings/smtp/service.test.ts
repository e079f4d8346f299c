import assert from 'node:assert/strict';
import { auditTrailOn } from '../../testing/audit.js';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSecretBox } from '../../lib/secret-box.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { captureLogger } from '../../testing/logger.js';
import { smtpSettingsSchema, type SmtpSettingsInput } from '../../../../contracts/settings.js';
import { createSmtpSettingsService } from './service.js';

const KEYS = { settingsEncryptionKey: 'settings-key-for-smtp-tests-0123456789', authSecret: 'a'.repeat(40) };

function input(overrides: Partial<SmtpSettingsInput> = {}): SmtpSettingsInput {
  return {
    enabled: true,
    host: 'smtp.example.com',
    port: 587,
    encryption: 'starttls',
    user: 'mailer',
    password: 'Sm7p-Passw0rd',
    fromAddress: 'argus@example.com',
    fromName: 'Argus',
    ...overrides,
  };
}

describe('SMTP settings service', () => {
  let db: TestDatabase;
  const box = createSecretBox(KEYS, captureLogger().log);
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    await db.knex('app_settings').where({ key: 'smtp' }).delete();
  });

  it('starts switched off with no password', async () => {
    const smtp = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box });
    const settings = await smtp.get();
    assert.equal(settings.enabled, false);
    assert.equal(settings.passwordSet, false);
    assert.equal(await smtp.isEnabled(), false);
    assert.equal(await smtp.getTransportSettings(), null);
  });

  it('stores the password sealed, never answers it, and opens it for the transport', async () => {
    const smtp = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box });
    const answer = await smtp.update(input());
    assert.equal(answer.passwordSet, true);
    assert.ok(!('password' in answer));
    assert.deepEqual(await smtp.get(), answer);

    const row = await db.knex('app_settings').where({ key: 'smtp' }).first();
    assert.ok(!JSON.stringify(row.value).includes('Sm7p-Passw0rd'), 'not in clear at rest');
    assert.equal(box.sourceOf(row.value.password), 'sek');
    assert.equal((await smtp.getTransportSettings())?.password, 'Sm7p-Passw0rd');
    assert.equal(await smtp.isEnabled(), true);
  });

  it('keeps the password when absent, clears it on "", replaces it otherwise', async () => {
    const smtp = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box });
    await smtp.update(input());
    const { password: _absent, ...withoutPassword } = input({ host: 'mail.example.org' });
    assert.equal((await smtp.update(withoutPassword)).passwordSet, true);
    assert.equal((await smtp.getTransportSettings())?.password, 'Sm7p-Passw0rd');
    assert.equal((await smtp.getTransportSettings())?.host, 'mail.example.org');

    await smtp.update(input({ password: 'Another-0ne' }));
    assert.equal((await smtp.getTransportSettings())?.password, 'Another-0ne');

    assert.equal((await smtp.update(input({ password: '' }))).passwordSet, false);
    assert.equal((await smtp.getTransportSettings())?.password, null);
  });

  it('gives the transport nothing while disabled or when the password no longer opens', async () => {
    const smtp = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box });
    await smtp.update(input({ enabled: false }));
    assert.equal(await smtp.getTransportSettings(), null);
    assert.equal((await smtp.getSettingsForTest()).password, 'Sm7p-Passw0rd', 'the test send may use it');

    await smtp.update(input());
    const logs = captureLogger();
    const lost = createSmtpSettingsService({
      db: db.knex,
      audit: auditTrailOn(db.knex),
      box: createSecretBox(
        { settingsEncryptionKey: 'another-key-0123456789abcdefghijklm', authSecret: 'b'.repeat(40) },
        logs.log,
      ),
    });
    assert.equal(await lost.getTransportSettings(), null);
    assert.equal(await lost.isEnabled(), true, 'still switched on: --disable-smtp is the recovery');
    await assert.rejects(lost.getSettingsForTest(), /could not be decrypted/);
    assert.ok(
      logs.messages().some((message) => message.includes('could not be decrypted')),
      'logged by the box',
    );
  });
});

describe('SMTP settings schema', () => {
  function fieldOf(body: unknown): string | undefined {
    const result = smtpSettingsSchema.safeParse(body);
    return result.success ? undefined : result.error.issues[0]?.path.join('.');
  }

  it('needs a host and a sender address only when enabled', () => {
    assert.equal(fieldOf(input({ host: '' })), 'host');
    assert.equal(fieldOf(input({ fromAddress: 'not-an-address' })), 'fromAddress');
    assert.equal(fieldOf(input({ enabled: false, host: '', fromAddress: '' })), undefined);
  });

  it('refuses ports outside 1..65535, unknown encryption and header-breaking names', () => {
    assert.equal(fieldOf(input({ port: 0 })), 'port');
    assert.equal(fieldOf(input({ port: 65536 })), 'port');
    assert.equal(fieldOf(input({ port: 25.5 })), 'port');
    assert.equal(fieldOf({ ...input(), encryption: 'ssl' }), 'encryption');
    assert.equal(fieldOf(input({ fromName: 'Argus\r\nBcc: someone@example.com' })), 'fromName');
    assert.equal(fieldOf(input({ host: 'smtp.example.com\r\nRCPT' })), 'host');
  });
});
