/**
 * The live hub after a mass outage: 10,000 systems of 50 customers change status in one run, and
 * more ids than PostgreSQL takes bind parameters (65,535) arrive in one batch (systems deleted
 * meanwhile among them). One lookup of their customers (an array parameter), one announcement per
 * customer, and the snapshot refresh sees the outage in one fingerprint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createLiveRepo } from './repo.js';
import { createSnapshotRefresh } from './snapshot-refresh.js';
import { createSystemChanges } from './system-changes.js';

const CUSTOMERS = 50;
const PER_CUSTOMER = 200;
const GONE = 60_000;

describe('live changes of 10,000 systems at once', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await db.knex.raw(`INSERT INTO customers (name) SELECT 'Customer ' || g FROM generate_series(1, ?) g`, [CUSTOMERS]);
    await db.knex.raw(
      `INSERT INTO systems (customer_id, name, hostname, status, last_seen_at)
       SELECT c.id, 'host-' || c.id || '-' || g, 'host', 'ONLINE', now() FROM customers c, generate_series(1, ?) g`,
      [PER_CUSTOMER],
    );
  });
  after(async () => {
    await db.drop();
  });

  it('looks up 70,000 changed ids in one statement and announces each customer once', async () => {
    const repo = createLiveRepo(db.knex);
    const ids: number[] = await db.knex('systems').pluck('id');
    const maxId = Math.max(...ids);
    const announced = new Map<number, number[]>();
    const owners = new Map<number, number | null>();
    let done: () => void = () => undefined;
    const allAnnounced = new Promise<void>((resolve) => (done = resolve));
    const logs = captureLogger();
    const changes = createSystemChanges({
      log: logs.log,
      customersOfSystems: (list) => repo.customersOfSystems(list),
      setOwner: (systemId, customerId) => owners.set(systemId, customerId),
      announce: (customerId, systemIds) => {
        announced.set(customerId, systemIds);
        if (announced.size === CUSTOMERS) done();
      },
    });
    for (const id of ids) changes.add(id);
    for (let i = 1; i <= GONE; i++) changes.add(maxId + i);
    await Promise.race([allAnnounced, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    changes.close();
    assert.deepEqual(logs.messages(), [], 'the lookup did not fail');
    assert.equal(announced.size, CUSTOMERS);
    assert.ok([...announced.values()].every((list) => list.length === PER_CUSTOMER));
    assert.equal(owners.get(maxId + 1), null, 'a system gone meanwhile has no owner any more');
  });

  it('refreshes every snapshot once the outage opened 10,000 alerts', async () => {
    const repo = createLiveRepo(db.knex);
    const invalidated: (readonly string[] | undefined)[] = [];
    const refresh = createSnapshotRefresh({
      snapshots: { invalidate: (topics?: readonly string[]) => void invalidated.push(topics), audienceCount: () => 1 },
      log: captureLogger().log,
      fingerprint: () => repo.fleetFingerprint(),
    });
    await refresh();
    invalidated.length = 0;
    await db.knex.raw(`UPDATE systems SET status = 'OFFLINE'`);
    await db.knex.raw(
      `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, state, started_at)
       SELECT 'system.offline', 'offline', id, customer_id, 'CRITICAL', 'open', now() FROM systems`,
    );
    await refresh();
    assert.deepEqual(invalidated, [undefined], 'every snapshot recomputed (they all show open alerts)');
  });
});
