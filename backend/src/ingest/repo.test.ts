import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../../db/connection.js';
import { createCustomer } from '../testing/accounts.js';
import { captureLogger } from '../testing/logger.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { createIngestRepo } from './repo.js';

describe('ingest repo: system lookups', () => {
  let db: TestDatabase;
  let customerId: number;
  before(async () => {
    db = await createTestDatabase();
    customerId = await createCustomer(db.knex);
  });
  after(() => db.drop());

  async function system(agentId: string): Promise<number> {
    const [row] = await db
      .knex('systems')
      .insert({ customer_id: customerId, name: agentId, agent_id: agentId, status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  it('answers concurrent lookups, known, unknown and repeated, each with its own system', async () => {
    const repo = createIngestRepo(db.knex);
    const [a, b] = [await system('lookup-a'), await system('lookup-b')];
    const found = await Promise.all(
      ['lookup-a', 'lookup-b', 'lookup-unknown', 'lookup-a'].map((sub) => repo.findSystemByAgentId(sub)),
    );
    assert.deepEqual(
      found.map((row) => row?.id ?? null),
      [a, b, null, a],
    );
    assert.equal(found[0]?.customerId, customerId);
    assert.equal(found[0]?.status, 'ONLINE');
  });

  it('reads afresh on every lookup: nothing is cached between them', async () => {
    const repo = createIngestRepo(db.knex);
    const id = await system('lookup-fresh');
    assert.equal((await repo.findSystemByAgentId('lookup-fresh'))?.agentKeyHash, null);
    await db.knex('systems').where({ id }).update({ agent_key_hash: 'h1' });
    assert.equal((await repo.findSystemByAgentId('lookup-fresh'))?.agentKeyHash, 'h1');
    await db.knex('systems').where({ id }).delete();
    assert.equal(await repo.findSystemByAgentId('lookup-fresh'), null);
  });

  it('fails every lookup of a turn when the query fails', async () => {
    const closed = createKnex({ url: db.url, poolMax: 1, log: captureLogger().log });
    await closed.destroy();
    const repo = createIngestRepo(closed);
    const results = await Promise.allSettled(['x', 'y'].map((sub) => repo.findSystemByAgentId(sub)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
  });
});
