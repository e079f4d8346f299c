/**
 * The checks repo's writes take the transaction as their last argument: without one they write
 * through the repo's own connection, with one they commit or roll back with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { agentTcpCheck } from '../testing/check-rig.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { createChecksRepo, type ChecksRepo } from './repo.js';

describe('checks repo: the transaction last', () => {
  let db: TestDatabase;
  let repo: ChecksRepo;
  before(async () => {
    db = await createTestDatabase();
    repo = createChecksRepo(db.knex);
  });
  after(() => db.drop());

  it('writes through its own connection when given no transaction', async () => {
    const customerId = await createCustomer(db.knex);
    const id = await repo.insert(agentTcpCheck(customerId, 'vpn', []));
    await repo.update(id, { name: 'vpn gateway', enabled: false });
    const stored = await repo.find(id);
    assert.deepEqual([stored?.name, stored?.state], ['vpn gateway', 'PAUSED']);
    await repo.delete(id);
    assert.equal(await repo.find(id), null);
  });

  it('writes in the transaction it is given, rolled back with it', async () => {
    const customerId = await createCustomer(db.knex);
    let id = 0;
    await assert.rejects(
      repo.transaction(async (trx) => {
        id = await repo.insert(agentTcpCheck(customerId, 'vpn', []), trx);
        await repo.update(id, { name: 'vpn gateway' }, trx);
        assert.equal((await repo.find(id, trx))?.name, 'vpn gateway');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await repo.find(id), null);
  });
});
