/**
 * The status pages repo's writes take the transaction as their last argument: without one they
 * write through the repo's own connection, with one they commit or roll back with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { insertSystem } from '../testing/status-page-rows.js';
import { createStatusPagesRepo, type StatusPagesRepo } from './repo.js';

describe('status pages repo: the transaction last', () => {
  let db: TestDatabase;
  let repo: StatusPagesRepo;
  let customerId: number;
  let systemId: number;
  const now = new Date('2026-03-01T10:00:00Z');
  const page = (title: string) => ({
    title,
    announcement: '',
    items: [{ kind: 'system' as const, id: systemId, displayName: 'Website' }],
  });
  before(async () => {
    db = await createTestDatabase();
    repo = createStatusPagesRepo(db.knex);
    customerId = await createCustomer(db.knex);
    systemId = await insertSystem(db.knex, customerId, { name: 'web-01' });
  });
  after(() => db.drop());

  it('writes through its own connection when given no transaction', async () => {
    const id = await repo.insert({ ...page('Status'), customerId, slug: 'first', slugHash: 'hash-1', now });
    await repo.update(id, { ...page('Service status'), now });
    await repo.rotate(id, 'second', 'hash-2', now);
    const stored = await repo.find(id);
    assert.deepEqual([stored?.title, stored?.slug, stored?.items.length], ['Service status', 'second', 1]);
    await repo.delete(id);
    assert.equal(await repo.find(id), null);
  });

  it('writes in the transaction it is given, rolled back with it', async () => {
    let id = 0;
    await assert.rejects(
      repo.transaction(async (trx) => {
        id = await repo.insert({ ...page('Status'), customerId, slug: 'third', slugHash: 'hash-3', now }, trx);
        await repo.rotate(id, 'fourth', 'hash-4', now, trx);
        assert.equal((await repo.find(id, trx))?.slug, 'fourth');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await repo.find(id), null);
  });
});
