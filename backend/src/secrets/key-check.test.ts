import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSecretBox } from '../lib/secret-box.js';
import { createSmtpSettingsService } from '../settings/smtp/service.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { useTestServer } from '../testing/app.js';
import { captureLogger } from '../testing/logger.js';
import { checkSecretsKey } from './key-check.js';
import { createSecretsRepo } from './repo.js';
import { places } from './places.js';

const AUTH = 'auth-secret-for-key-check-tests-0123456789';
const SEK = 'settings-key-for-key-check-tests-0123456789';

function boxOf(keys: { settingsEncryptionKey: string | null; authSecret: string }) {
  const logs = captureLogger();
  return { box: createSecretBox(keys, logs.log), logs };
}

describe('secrets key check at start', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    await db.knex('app_settings').whereIn('key', ['secrets_key_check', 'smtp']).delete();
    await db.knex('users').delete();
    await db.knex.raw('DROP TABLE IF EXISTS agent_settings');
  });

  async function insertUser(email: string): Promise<number> {
    const [row] = await db
      .knex('users')
      .insert({ email, name: email, role: 'VIEWER', password_hash: 'x' })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  it('creates the check value on the first start, then finds it ok', async () => {
    const { box, logs } = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    assert.deepEqual(await checkSecretsKey({ repo: createSecretsRepo(db.knex), box, log: logs.log }), {
      status: 'created',
    });
    const row = await db.knex('app_settings').where({ key: 'secrets_key_check' }).first();
    assert.equal(box.sourceOf(row.value.sealed), 'sek');
    assert.deepEqual(await checkSecretsKey({ repo: createSecretsRepo(db.knex), box, log: logs.log }), { status: 'ok' });
    assert.equal(logs.lines().filter((line) => line['level'] === 50).length, 0);
  });

  it('reports a changed key loudly with the recovery steps, and does not throw', async () => {
    const first = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: first.box, log: first.logs.log });
    const changed = boxOf({ settingsEncryptionKey: 'a-new-key-nobody-remembered-0123456789', authSecret: AUTH });
    assert.deepEqual(
      await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: changed.box, log: changed.logs.log }),
      {
        status: 'mismatch',
      },
    );
    const loud = changed.logs
      .lines()
      .find((line) => String(line['msg']).includes('STORED SECRETS CANNOT BE DECRYPTED'));
    assert.ok(loud, 'logged');
    assert.equal(loud['level'], 50, 'at error level');
    const message = String(loud['msg']);
    for (const step of ['SMTP password', 'agent secrets', 'authenticator', '--disable-smtp', '--clear-2fa']) {
      assert.ok(message.includes(step), `names "${step}"`);
    }
    const row = await db.knex('app_settings').where({ key: 'secrets_key_check' }).first();
    assert.equal(first.box.sourceOf(row.value.sealed), 'sek', 'the check value is left for the old key');
  });

  it('says so when SETTINGS_ENCRYPTION_KEY was dropped from the environment', async () => {
    const first = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: first.box, log: first.logs.log });
    const dropped = boxOf({ settingsEncryptionKey: null, authSecret: AUTH });
    assert.equal(
      (await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: dropped.box, log: dropped.logs.log })).status,
      'mismatch',
    );
    assert.ok(dropped.logs.messages().some((message) => message.includes('is not set now')));
  });

  it('follows the current key once the recovery has re-entered a secret under it', async () => {
    const old = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: old.box, log: old.logs.log });
    const ada = await insertUser('ada@example.com');
    await db
      .knex('users')
      .where({ id: ada })
      .update({ totp_secret: old.box.seal('ADA-TOTP', places.totpSecret(ada)) });

    const fresh = boxOf({ settingsEncryptionKey: 'the-replacement-key-0123456789abcdef', authSecret: AUTH });
    const check = () => checkSecretsKey({ repo: createSecretsRepo(db.knex), box: fresh.box, log: fresh.logs.log });
    assert.equal((await check()).status, 'mismatch', 'a secret under the old key is no recovery');

    await createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box: fresh.box }).update({
      enabled: true,
      host: 'smtp.example.com',
      port: 465,
      encryption: 'tls',
      user: 'mailer',
      password: 're-entered-Secret',
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
    });
    const alarms = () => fresh.logs.messages().filter((message) => message.includes('CANNOT BE DECRYPTED')).length;
    const before = alarms();
    assert.equal((await check()).status, 'ok');
    assert.equal((await check()).status, 'ok');
    assert.equal(alarms(), before, 'no alarm once the admin re-entered the SMTP password');
  });

  it('moves fallback-sealed values on the first check when SETTINGS_ENCRYPTION_KEY is already set', async () => {
    const fallback = boxOf({ settingsEncryptionKey: null, authSecret: AUTH });
    const ada = await insertUser('ada@example.com');
    await db
      .knex('users')
      .where({ id: ada })
      .update({ totp_secret: fallback.box.seal('ADA-TOTP', places.totpSecret(ada)) });
    const upgraded = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    assert.equal(
      (await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: upgraded.box, log: upgraded.logs.log })).status,
      'created',
    );
    const user = await db.knex('users').where({ id: ada }).first('totp_secret');
    assert.equal(upgraded.box.sourceOf(user.totp_secret), 'sek');
    assert.equal(upgraded.box.open(user.totp_secret, places.totpSecret(ada)), 'ADA-TOTP');
  });

  it('moves every covered secret to SETTINGS_ENCRYPTION_KEY once it is set', async () => {
    const fallback = boxOf({ settingsEncryptionKey: null, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: fallback.box, log: fallback.logs.log });
    await createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box: fallback.box }).update({
      enabled: true,
      host: 'smtp.example.com',
      port: 587,
      encryption: 'starttls',
      user: 'mailer',
      password: 'smtp-Secret-1',
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
    });
    const ada = await insertUser('ada@example.com');
    const bob = await insertUser('bob@example.com');
    const plain = await insertUser('carol@example.com');
    await db
      .knex('users')
      .where({ id: ada })
      .update({ totp_secret: fallback.box.seal('ADA-TOTP', places.totpSecret(ada)) });
    await db
      .knex('users')
      .where({ id: bob })
      .update({ totp_pending_secret: fallback.box.seal('BOB-PENDING', places.totpPendingSecret(bob)) });
    await db.knex.raw(
      'CREATE TABLE agent_settings (id integer PRIMARY KEY, value text NOT NULL, secret boolean NOT NULL)',
    );
    await db.knex('agent_settings').insert([
      { id: 1, value: fallback.box.seal('agent-token', places.agentSetting(1)), secret: true },
      { id: 2, value: 'plain value', secret: false },
    ]);

    const upgraded = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    assert.deepEqual(
      await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: upgraded.box, log: upgraded.logs.log }),
      {
        status: 'reencrypted',
      },
    );

    // opened with SETTINGS_ENCRYPTION_KEY alone: a different AUTH_SECRET no longer matters
    const sekOnly = boxOf({ settingsEncryptionKey: SEK, authSecret: 'rotated-auth-secret-0123456789abcdef' }).box;
    const smtp = await db.knex('app_settings').where({ key: 'smtp' }).first();
    assert.equal(sekOnly.sourceOf(smtp.value.password), 'sek');
    assert.equal(sekOnly.open(smtp.value.password, places.smtpPassword), 'smtp-Secret-1');
    assert.equal(smtp.value.host, 'smtp.example.com', 'the rest of the block is untouched');
    const users = await db.knex('users').orderBy('id').select('id', 'totp_secret', 'totp_pending_secret');
    assert.equal(sekOnly.open(users[0].totp_secret, places.totpSecret(ada)), 'ADA-TOTP');
    assert.equal(sekOnly.open(users[1].totp_pending_secret, places.totpPendingSecret(bob)), 'BOB-PENDING');
    assert.equal(users[2].totp_secret, null, `user ${plain} without an authenticator stays without`);
    const agent = await db.knex('agent_settings').orderBy('id').select('value');
    assert.equal(sekOnly.open(agent[0].value, places.agentSetting(1)), 'agent-token');
    assert.equal(agent[1].value, 'plain value', 'settings not flagged secret are left alone');

    assert.deepEqual(
      await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: sekOnly, log: upgraded.logs.log }),
      { status: 'ok' },
    );
  });

  it('re-encrypts without an agent_settings table (it comes with a later feature)', async () => {
    const fallback = boxOf({ settingsEncryptionKey: null, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: fallback.box, log: fallback.logs.log });
    const ada = await insertUser('ada@example.com');
    await db
      .knex('users')
      .where({ id: ada })
      .update({ totp_secret: fallback.box.seal('ADA-TOTP', places.totpSecret(ada)) });
    const upgraded = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    assert.equal(
      (await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: upgraded.box, log: upgraded.logs.log })).status,
      'reencrypted',
    );
    const user = await db.knex('users').where({ id: ada }).first('totp_secret');
    assert.equal(upgraded.box.sourceOf(user.totp_secret), 'sek');
  });
  it('moves notification channel targets and secrets, and leaves e-mail addresses alone', async () => {
    await db.knex('notification_channels').whereNot({ target: 'accounts' }).delete();
    const fallback = boxOf({ settingsEncryptionKey: null, authSecret: AUTH });
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: fallback.box, log: fallback.logs.log });
    const [hook] = await db
      .knex('notification_channels')
      .insert({ name: 'Slack', type: 'slack', target: '' })
      .returning<{ id: number }[]>('id');
    const id = (hook as { id: number }).id;
    await db
      .knex('notification_channels')
      .where({ id })
      .update({
        target: fallback.box.seal('https://hooks.slack.com/services/T/B/X', places.channelTarget(id)),
        secret: fallback.box.seal('hook-secret', places.channelSecret(id)),
      });
    await db.knex('notification_channels').insert({ name: 'Ops', type: 'email', target: 'ops@example.com' });

    const upgraded = boxOf({ settingsEncryptionKey: SEK, authSecret: AUTH });
    assert.equal(
      (await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: upgraded.box, log: upgraded.logs.log })).status,
      'reencrypted',
    );
    const sekOnly = boxOf({ settingsEncryptionKey: SEK, authSecret: 'rotated-auth-secret-0123456789abcdef' }).box;
    const row = await db.knex('notification_channels').where({ id }).first();
    assert.equal(sekOnly.open(row.target, places.channelTarget(id)), 'https://hooks.slack.com/services/T/B/X');
    assert.equal(sekOnly.open(row.secret, places.channelSecret(id)), 'hook-secret');
    const mail = await db.knex('notification_channels').where({ name: 'Ops' }).first();
    assert.equal(mail.target, 'ops@example.com');
  });
});

describe('secrets key check of the running server', () => {
  const fixture = useTestServer();

  it('has run once the server listens: the check value is stored', async () => {
    const row = await fixture.db.knex('app_settings').where({ key: 'secrets_key_check' }).first();
    assert.equal(typeof row?.value.sealed, 'string');
    assert.equal(fixture.server.logs.lines().filter((line) => line['level'] === 50).length, 0);
  });
});
