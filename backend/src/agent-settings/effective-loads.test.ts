/**
 * The effective settings of many systems whose cache entries are missing or expired at once (a
 * fleet's first reports after a start): loaded together, each system still given its own layers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../../db/connection.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { FakeClock } from '../lib/clock.js';
import { randomToken } from '../lib/crypto.js';
import { createSecretBox } from '../lib/secret-box.js';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createAgentSettingsRepo } from './repo.js';
import { createAgentSettingsService, EFFECTIVE_CACHE_TTL_MS } from './service.js';

describe('agent settings: the effective settings of many systems at once', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('loads the systems asked for together in one query, each with its cluster and its own settings', async () => {
    const customerId = await createCustomer(db.knex);
    const [cluster] = await db
      .knex('clusters')
      .insert({ customer_id: customerId, name: 'fleet', enrollment_key: randomToken(16) })
      .returning<{ id: number }[]>('id');
    const clusterId = (cluster as { id: number }).id;
    const systems = await db
      .knex('systems')
      .insert(
        Array.from({ length: 40 }, (_, i) => ({
          customer_id: customerId,
          cluster_id: clusterId,
          name: `s${i}`,
          agent_id: `effective-${i}`,
        })),
      )
      .returning<{ id: number }[]>('id');
    const ids = systems.map((row) => row.id);
    await db.knex('agent_settings').insert([
      { scope_type: 'cluster', cluster_id: clusterId, key: 'interval', value: '30', secret: false },
      { scope_type: 'system', system_id: ids[1], key: 'interval', value: '60', secret: false },
      { scope_type: 'system', system_id: ids[2], key: 'log.level', value: 'debug', secret: false },
    ]);
    // a pool of the service's own, whose connections taken are its queries
    const { log } = captureLogger();
    const own = createKnex({ url: db.url, poolMax: 4, log });
    let queries = 0;
    (own.client as { pool: { on(event: string, listener: () => void): void } }).pool.on(
      'acquireSuccess',
      () => (queries += 1),
    );
    const clock = new FakeClock(new Date());
    const service = createAgentSettingsService({
      repo: createAgentSettingsRepo(own),
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'effective-loads-secret' }, log),
      clock,
      log,
      audit: createAuditService({ repo: createAuditRepo(own), clock }),
    });
    try {
      const expected = ids.map((_, i) =>
        i === 1 ? { interval: '60' } : i === 2 ? { interval: '30', 'log.level': 'debug' } : { interval: '30' },
      );
      assert.deepEqual(await Promise.all(ids.map((id) => service.effectiveSettingsForAgent(id))), expected);
      assert.equal(queries, 1, 'one query for the 40 systems');
      assert.deepEqual(await Promise.all(ids.map((id) => service.effectiveSettingsForAgent(id))), expected);
      assert.equal(queries, 1, 'then from the cache');
      clock.advance(EFFECTIVE_CACHE_TTL_MS);
      assert.deepEqual(await Promise.all(ids.map((id) => service.effectiveSettingsForAgent(id))), expected);
      assert.equal(queries, 2, 'expired together, loaded again together');
    } finally {
      await own.destroy();
    }
  });
});
