import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0005_agent_settings.js';
import { createSecretBox } from '../lib/secret-box.js';
import { checkSecretsKey } from '../secrets/key-check.js';
import { createSecretsRepo } from '../secrets/repo.js';
import { places } from '../secrets/places.js';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';

describe('migration 0005_agent_settings', () => {
  let db: TestDatabase;
  let clusterId: number;
  before(async () => {
    db = await createTestDatabase();
    const customer = await createCustomer(db.knex);
    const [row] = await db
      .knex('clusters')
      .insert({ customer_id: customer, name: 'm', enrollment_key: 'migration-test-key-0123456789' })
      .returning<{ id: number }[]>('id');
    clusterId = (row as { id: number }).id;
  });
  after(() => db.drop());

  const exists = async () =>
    (await db.knex('pg_tables').where({ schemaname: 'public', tablename: 'agent_settings' })).length === 1;

  it('goes down and up again cleanly', async () => {
    assert.ok(await exists());
    await down(db.knex);
    assert.equal(await exists(), false);
    await up(db.knex);
    assert.ok(await exists());
  });

  it('refuses a bad key, a scope without its row, and a second row for one key, even by SQL', async () => {
    const insert = (row: Record<string, unknown>) =>
      db.knex('agent_settings').insert({ scope_type: 'cluster', cluster_id: clusterId, value: 'v', ...row });
    await insert({ key: 'ok.key' });
    await assert.rejects(insert({ key: 'Bad Key' }), /check/);
    await assert.rejects(insert({ key: 'other', cluster_id: null }), /check/);
    await assert.rejects(insert({ key: 'ok.key' }), /unique/);
    await db.knex('agent_settings').delete();
  });

  it('lets the start-up key check move secret rows to SETTINGS_ENCRYPTION_KEY', async () => {
    const logs = captureLogger();
    const authSecret = 'migration-test-auth-secret-0123456789abcdef';
    const fallback = createSecretBox({ settingsEncryptionKey: null, authSecret }, logs.log);
    await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: fallback, log: logs.log });
    const [row] = await db
      .knex('agent_settings')
      .insert({ scope_type: 'cluster', cluster_id: clusterId, key: 'token', value: '', secret: true })
      .returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    await db
      .knex('agent_settings')
      .where({ id })
      .update({ value: fallback.seal('agent-token', places.agentSetting(id)) });

    const upgraded = createSecretBox(
      { settingsEncryptionKey: 'a-new-settings-key-0123456789abcdef', authSecret },
      logs.log,
    );
    assert.equal(
      (await checkSecretsKey({ repo: createSecretsRepo(db.knex), box: upgraded, log: logs.log })).status,
      'reencrypted',
    );
    const stored = await db.knex('agent_settings').where({ id }).first('value');
    assert.equal(upgraded.sourceOf(stored.value), 'sek');
    assert.equal(upgraded.open(stored.value, places.agentSetting(id)), 'agent-token');
  });
});
