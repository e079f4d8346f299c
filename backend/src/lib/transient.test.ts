import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { isTransientConflict, retryTransient } from './transient.js';

describe('retryTransient on a real PostgreSQL deadlock', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await db.knex.raw('CREATE TABLE pair (id int PRIMARY KEY, n int NOT NULL)');
    await db.knex.raw('INSERT INTO pair VALUES (1, 0), (2, 0)');
  });
  after(async () => {
    await db.drop();
  });

  /** Locks `first`, waits until the other side has locked its row, then wants `second`. */
  function crossing(first: number, second: number, holding: Promise<void>, held: () => void) {
    return db.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL deadlock_timeout = 50');
      await trx('pair').where({ id: first }).increment('n', 1);
      held();
      await holding;
      await trx('pair').where({ id: second }).increment('n', 1);
    });
  }

  it('runs the aborted side again, so both transactions commit', async () => {
    let aHeld!: () => void;
    let bHeld!: () => void;
    const aHolding = new Promise<void>((resolve) => (aHeld = resolve));
    const bHolding = new Promise<void>((resolve) => (bHeld = resolve));
    let attempts = 0;
    const conflicts: unknown[] = [];
    const side = (first: number, second: number, mine: () => void, theirs: Promise<void>) =>
      retryTransient(async () => {
        attempts += 1;
        try {
          // on a retry the other side has committed or is waiting on us: no need to wait for it
          await crossing(first, second, attempts > 2 ? Promise.resolve() : theirs, mine);
        } catch (error) {
          conflicts.push(error);
          throw error;
        }
      });
    await Promise.all([side(1, 2, aHeld, bHolding), side(2, 1, bHeld, aHolding)]);
    // at least one side was the deadlock victim; under load its retry can cross the other side's
    // lock once more and be chosen again, which the retry must survive as well
    assert.ok(conflicts.length >= 1, 'a side was chosen as the deadlock victim');
    assert.ok(conflicts.every(isTransientConflict), 'every abort was a deadlock, retried');
    const rows = await db.knex('pair').orderBy('id').select('n');
    assert.deepEqual(
      rows.map((r) => r.n),
      [2, 2],
      'both transactions committed in full',
    );
  });

  it('does not retry other errors', async () => {
    let attempts = 0;
    await assert.rejects(
      retryTransient(async () => {
        attempts += 1;
        await db.knex.raw('SELECT 1 / 0');
      }),
      /division by zero/,
    );
    assert.equal(attempts, 1);
  });
});
