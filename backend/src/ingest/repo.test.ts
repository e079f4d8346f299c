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

  it('sends the lookups of one turn in one query, and those of a later turn at once, not after it', async () => {
    const [a, b, c] = [await system('flight-a'), await system('flight-b'), await system('flight-c')];
    // a pool of the repo's own, whose connections taken are its queries
    const own = createKnex({ url: db.url, poolMax: 4, log: captureLogger().log });
    const repo = createIngestRepo(own);
    let queries = 0;
    const pool = (own.client as { pool: { on(event: string, listener: () => void): void } }).pool;
    pool.on('acquireSuccess', () => (queries += 1));
    // the first query waits behind a lock, so it is surely in flight while the later turn asks
    const locker = await db.knex.transaction();
    await locker.raw('LOCK TABLE systems IN ACCESS EXCLUSIVE MODE');
    const firstTurn = [repo.findSystemByAgentId('flight-a'), repo.findSystemByAgentId('flight-b')];
    await waitFor(async () => (await lookupsWaitingForLock()) === 1);
    const laterTurn = repo.findSystemByAgentId('flight-c');
    await waitFor(async () => (await lookupsWaitingForLock()) === 2);
    assert.equal(queries, 2, 'one query for the first turn, and the later one did not wait for it');
    await locker.commit();
    assert.deepEqual(
      (await Promise.all([...firstTurn, laterTurn])).map((row) => row?.id),
      [a, b, c],
    );
    await own.destroy();
  });

  async function lookupsWaitingForLock(): Promise<number> {
    const { rows } = await db.knex.raw<{ rows: { n: string }[] }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return Number(rows[0]?.n);
  }

  async function waitFor(done: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 200 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

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
