/**
 * GET /api/audit-log: ADMIN sees every row, an OPERATOR its customers' rows, a
 * VIEWER is refused; filters and cursor paging; a change whose transaction fails leaves no row
 * (nor the change); rows past AUDIT_RETENTION are purged by housekeeping.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { FakeClock } from '../lib/clock.js';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { createHousekeeping } from '../housekeeping/service.js';
import { createHousekeepingRepo } from '../housekeeping/repo.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { captureLogger } from '../testing/logger.js';
import { signedInAs, type Client } from '../testing/http.js';
import { createAuditRepo } from './repo.js';
import { createAuditService } from './service.js';

describe('audit log API', () => {
  const fixture = useTestServer();
  let db: Knex;
  let mine: number;
  let theirs: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;

  before(async () => {
    db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    theirs = await createCustomer(db, 'Theirs');
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [mine]);
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [mine]);
    for (const [customerId, name] of [
      [mine, 'm1'],
      [theirs, 't1'],
      [mine, 'm2'],
      [theirs, 't2'],
      [mine, 'm3'],
    ] as const) {
      assert.equal((await admin.post('/api/clusters', { customerId, name })).status, 201);
    }
  });

  it('shows an ADMIN every row, newest first, in the documented shape', async () => {
    const reply = await admin.get('/api/audit-log?action=cluster.create');
    assert.equal(reply.status, 200);
    assert.deepEqual(
      reply.body.items.map((i: { after: { name: string } }) => i.after.name),
      ['m3', 't2', 'm2', 't1', 'm1'],
    );
    const first = reply.body.items[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'action',
      'actor',
      'address',
      'after',
      'at',
      'before',
      'customerId',
      'id',
      'target',
    ]);
    assert.equal(first.actor.type, 'user');
    assert.equal(first.target.type, 'cluster');
    assert.equal(first.customerId, mine);
    assert.equal(reply.body.nextCursor, null);
  });

  it("shows an OPERATOR only its customers' rows and refuses a VIEWER", async () => {
    const reply = await operator.get('/api/audit-log');
    assert.equal(reply.status, 200);
    assert.ok(reply.body.items.length >= 3);
    assert.ok(reply.body.items.every((i: { customerId: number }) => i.customerId === mine));
    const asked = await operator.get(`/api/audit-log?customer=${theirs}`);
    assert.deepEqual(asked.body.items, []);
    assert.equal((await viewer.get('/api/audit-log')).status, 403);
  });

  it('filters by customer, action prefix, target, actor and time, and pages by cursor', async () => {
    const byCustomer = await admin.get(`/api/audit-log?customer=${theirs}&action=cluster`);
    assert.deepEqual(
      byCustomer.body.items.map((i: { after: { name: string } }) => i.after.name),
      ['t2', 't1'],
    );
    const one = byCustomer.body.items[0];
    const byTarget = await admin.get(`/api/audit-log?target=cluster:${one.target.id}`);
    assert.deepEqual(
      byTarget.body.items.map((i: { id: number }) => i.id),
      [one.id],
    );
    const byActor = await admin.get(`/api/audit-log?actor=user:${one.actor.id}&action=cluster.create`);
    assert.equal(byActor.body.items.length, 5);
    const byName = await admin.get(`/api/audit-log?actor=${encodeURIComponent(one.actor.name.toUpperCase())}`);
    assert.ok(byName.body.items.length >= 5);
    assert.deepEqual((await admin.get('/api/audit-log?actor=system')).body.items, []);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.deepEqual((await admin.get(`/api/audit-log?from=${encodeURIComponent(future)}`)).body.items, []);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    assert.deepEqual((await admin.get(`/api/audit-log?to=${encodeURIComponent(past)}`)).body.items, []);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/api/audit-log?action=cluster.create&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await admin.get(query);
      assert.equal(page.status, 200);
      assert.ok(page.body.items.length <= 2);
      seen.push(...page.body.items.map((i: { after: { name: string } }) => i.after.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ['m3', 't2', 'm2', 't1', 'm1']);
  });

  it('answers bad filters with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['customer=abc', 'customer'],
      ['from=yesterday', 'from'],
      ['cursor=bm9wZQ', 'cursor'],
      ['limit=0', 'limit'],
      ['colour=red', ''],
    ] as const) {
      const reply = await admin.get(`/api/audit-log?${query}`);
      assert.equal(reply.status, 400, query);
      if (field) assert.equal(reply.body.details?.field, field, query);
    }
  });

  it('leaves neither the change nor a row when the transaction fails', async () => {
    await db.raw(`
      CREATE FUNCTION refuse_doomed() RETURNS trigger AS $$
      BEGIN
        IF NEW.after->>'name' = 'Doomed' THEN RAISE EXCEPTION 'audit insert refused'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_doomed BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_doomed();
    `);
    try {
      const reply = await admin.post('/api/customers', { name: 'Doomed' });
      assert.equal(reply.status, 500);
      assert.equal(await db('customers').where({ name: 'Doomed' }).first(), undefined);
      assert.equal(await db('audit_log').whereRaw(`after->>'name' = 'Doomed'`).first(), undefined);
    } finally {
      await db.raw('DROP TRIGGER refuse_doomed ON audit_log; DROP FUNCTION refuse_doomed()');
    }
  });

  it('purges rows older than the retention in the hourly housekeeping', async () => {
    const clock = new FakeClock(new Date('2020-01-01T00:00:00Z'));
    const audit = createAuditService({ repo: createAuditRepo(db), clock });
    await db.transaction((trx) =>
      audit.record(trx, SYSTEM_ACTOR, { action: 'password.reset', targetType: 'user', targetId: 1 }),
    );
    clock.advance(399 * 86_400_000);
    await db.transaction((trx) =>
      audit.record(trx, SYSTEM_ACTOR, { action: 'password.reset', targetType: 'user', targetId: 2 }),
    );
    clock.advance(2 * 86_400_000); // the first row is now 401 days old, the second 2 days
    const logs = captureLogger();
    await createHousekeeping({
      repo: createHousekeepingRepo(db),
      clock,
      log: logs.log,
      auditRetention: { purge: () => audit.purge(400 * 86_400_000) },
    }).runOnce();
    const left = await db('audit_log').where({ action: 'password.reset' }).pluck('target_id');
    assert.deepEqual(left, ['2']);
    assert.ok(logs.lines().some((line) => line.msg === 'Removed audit log rows past AUDIT_RETENTION'));
  });
});
