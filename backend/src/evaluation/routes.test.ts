/**
 * `POST`/`GET /api/cron/evaluate-alerts` through the real app: the CRON_SECRET
 * bearer (checked only when set, never mistaken for an API token), the exact
 * answers of docs/api.md "Evaluation" (200 fields, 401, 500), overlapping runs, and a restart
 * between runs (a new app on the same database raises or resolves nothing falsely).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { randomToken } from '../lib/crypto.js';
import { EVALUATE_PATH, cronAuthorized } from './routes.js';

const SECRET = 'cron-secret-for-tests-0123456789abcdef';
const MINUTE = 60_000;

async function call(server: TestServer, method: 'GET' | 'POST', headers: Record<string, string> = {}) {
  const response = await fetch(server.url + EVALUATE_PATH, { method, headers });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    contentType: response.headers.get('content-type'),
  };
}

async function seedSystem(db: TestDatabase, clock: FakeClock, status = 'ONLINE') {
  const customerId = await createCustomer(db.knex);
  const [cluster] = await db
    .knex('clusters')
    .insert({ customer_id: customerId, name: 'c', enrollment_key: randomToken(16) })
    .returning<{ id: number }[]>('id');
  const [system] = await db
    .knex('systems')
    .insert({
      customer_id: customerId,
      cluster_id: cluster?.id,
      name: `s-${randomToken(3)}`,
      status,
      last_seen_at: clock.now(),
    })
    .returning<{ id: number }[]>('id');
  return { customerId, clusterId: cluster?.id as number, systemId: system?.id as number };
}

async function report(db: TestDatabase, clock: FakeClock, systemId: number, name: string, value: number) {
  // the view's trigger sets the series (db/migrations/0018)
  await db.knex('metric_latest').insert({ system_id: systemId, name, instance: '', value, time: clock.now() });
  await db.knex('systems').where({ id: systemId }).update({ last_seen_at: clock.now() });
}

describe('cronAuthorized', () => {
  it('accepts anything without a secret, and only the exact bearer with one', () => {
    assert.equal(cronAuthorized(undefined, null), true);
    assert.equal(cronAuthorized('Bearer whatever', null), true);
    assert.equal(cronAuthorized(undefined, SECRET), false);
    assert.equal(cronAuthorized(SECRET, SECRET), false);
    assert.equal(cronAuthorized(`Bearer ${SECRET}x`, SECRET), false);
    assert.equal(cronAuthorized(`Bearer ${SECRET.slice(0, -1)}`, SECRET), false);
    assert.equal(cronAuthorized(`Basic ${SECRET}`, SECRET), false);
    assert.equal(cronAuthorized(`Bearer ${SECRET}`, SECRET), true);
    assert.equal(cronAuthorized(`bearer  ${SECRET}`, SECRET), true);
  });
});

describe('the evaluation endpoint with CRON_SECRET set', () => {
  let db: TestDatabase;
  let server: TestServer;
  const clock = new FakeClock(new Date('2026-03-02T12:00:00.000Z'));
  before(async () => {
    db = await createTestDatabase();
    await ensureDefaultRules(db.knex);
    server = await startTestServer(testConfig(db.url, { CRON_SECRET: SECRET }), { clock });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('answers 401 {error: "Unauthorized"} without the bearer or with another one, on both methods, and runs nothing', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer nope' },
        { authorization: SECRET },
        { authorization: `Bearer ${SECRET}!` },
      ];
      for (const headers of attempts) {
        const reply = await call(server, method, headers);
        assert.equal(reply.status, 401, `${method} ${JSON.stringify(headers)}`);
        assert.deepEqual(reply.body, { error: 'Unauthorized' });
      }
    }
    assert.equal(await db.knex('app_settings').where({ key: 'evaluation_last_run' }).first(), undefined);
  });

  it('answers 200 with exactly the documented fields on GET and POST', async () => {
    const { clusterId } = await seedSystem(db, clock);
    const emptyCluster = await seedSystem(db, clock);
    await db.knex('systems').where({ id: emptyCluster.systemId }).delete();
    for (const method of ['POST', 'GET'] as const) {
      const reply = await call(server, method, { authorization: `Bearer ${SECRET}` });
      assert.equal(reply.status, 200);
      assert.match(reply.contentType ?? '', /application\/json/);
      assert.deepEqual(Object.keys(reply.body).sort(), ['alerts', 'clusters', 'health', 'success', 'timestamp']);
      assert.equal(reply.body.success, true);
      assert.equal(reply.body.timestamp, clock.now().toISOString());
      assert.deepEqual(Object.keys(reply.body.alerts).sort(), ['evaluated', 'resolved', 'triggered']);
      for (const value of Object.values(reply.body.alerts)) assert.ok(Number.isInteger(value));
      // one reporting system: the 42 alert rules switched on (44 less the 2 seeded off) + 1 event rule
      assert.equal(reply.body.alerts.evaluated, 43);
      assert.deepEqual(reply.body.health, { marked_offline: 0 });
      assert.deepEqual(reply.body.clusters[String(clusterId)], { systems: 1, online: 1, offline: 0, openAlerts: 0 });
      assert.deepEqual(reply.body.clusters[String(emptyCluster.clusterId)], {
        systems: 0,
        online: 0,
        offline: 0,
        openAlerts: 0,
      });
    }
  });

  it('is not refused by token authentication: the cron bearer is not an API token', async () => {
    const reply = await call(server, 'POST', { authorization: `Bearer ${SECRET}`, cookie: 'argus.sid=forged' });
    assert.equal(reply.status, 200);
  });

  it('runs two overlapping calls one after the other: both answer 200, nothing is raised twice', async () => {
    const { systemId } = await seedSystem(db, clock);
    clock.advance(3 * MINUTE); // every system here is now silent
    const auth = { authorization: `Bearer ${SECRET}` };
    const replies = await Promise.all([
      call(server, 'POST', auth),
      call(server, 'POST', auth),
      call(server, 'GET', auth),
    ]);
    for (const reply of replies) assert.equal(reply.status, 200);
    const triggered = replies.reduce((sum, r) => sum + r.body.alerts.triggered, 0);
    const marked = replies.reduce((sum, r) => sum + r.body.health.marked_offline, 0);
    const open = await db.knex('alerts').where({ state: 'open', rule_key: 'system.offline' });
    assert.equal(triggered, open.length);
    assert.equal(marked, open.length);
    assert.ok(open.some((a) => a.system_id === systemId));
    assert.equal(new Set(open.map((a) => a.system_id)).size, open.length);
  });

  it('excludes a second app instance on the same database by the advisory lock', async () => {
    const second = await startTestServer(testConfig(db.url, { CRON_SECRET: SECRET }), { clock });
    try {
      await seedSystem(db, clock);
      await seedSystem(db, clock);
      clock.advance(3 * MINUTE);
      const auth = { authorization: `Bearer ${SECRET}` };
      const replies = await Promise.all([call(server, 'POST', auth), call(second, 'POST', auth)]);
      for (const reply of replies) assert.equal(reply.status, 200);
      assert.equal(replies[0]!.body.alerts.triggered + replies[1]!.body.alerts.triggered, 2);
      const open = await db.knex('alerts').where({ state: 'open', rule_key: 'system.offline' }).select('system_id');
      assert.equal(new Set(open.map((a) => a.system_id)).size, open.length);
    } finally {
      await second.stop();
    }
  });

  it('answers 500 {success: false, error: "Evaluation failed"} when the run throws, and logs it', async () => {
    await db.knex.raw('ALTER TABLE alert_pending RENAME TO alert_pending_gone');
    try {
      const reply = await call(server, 'POST', { authorization: `Bearer ${SECRET}` });
      assert.equal(reply.status, 500);
      assert.deepEqual(reply.body, { success: false, error: 'Evaluation failed' });
      assert.ok(server.logs.lines().some((l) => l['msg'] === 'Evaluation failed' && l['level'] === 50));
    } finally {
      await db.knex.raw('ALTER TABLE alert_pending_gone RENAME TO alert_pending');
    }
    // the next run works again
    assert.equal((await call(server, 'POST', { authorization: `Bearer ${SECRET}` })).status, 200);
  });
});

describe('the evaluation endpoint without CRON_SECRET', () => {
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('is open, whatever Authorization header comes along', async () => {
    assert.equal((await call(server, 'POST')).status, 200);
    assert.equal((await call(server, 'GET', { authorization: 'Bearer argus_notatokenatall' })).status, 200);
    assert.equal((await call(server, 'POST', { authorization: 'Basic Zm9vOmJhcg==' })).body.success, true);
  });
});

describe('a restart between runs', () => {
  it('raises and resolves nothing falsely: pending `for`, open alerts, seen events and uptimes survive', async () => {
    const db = await createTestDatabase();
    await ensureDefaultRules(db.knex);
    const clock = new FakeClock(new Date('2026-03-02T12:00:00.000Z'));
    const { systemId } = await seedSystem(db, clock);
    const reportAll = async (cpu: number) => {
      await report(db, clock, systemId, 'cpu.usage_pct', cpu);
      await report(db, clock, systemId, 'mem.oom_kills', 1);
      await report(db, clock, systemId, 'uptime.s', 50_000 + clock.now().getTime() / 1000);
    };
    try {
      let server = await startTestServer(testConfig(db.url), { clock });
      await reportAll(91);
      await db.knex('agent_events').insert({
        system_id: systemId,
        time: clock.now(),
        type: 'system.reboot',
        severity: 'INFO',
        message: '',
        received_at: clock.now(),
      });
      let reply = await call(server, 'POST');
      assert.deepEqual([reply.body.alerts.triggered, reply.body.alerts.resolved], [2, 0]); // mem.oom, system.rebooted
      await server.stop();

      server = await startTestServer(testConfig(db.url), { clock });
      clock.advance(MINUTE);
      await reportAll(91);
      reply = await call(server, 'POST');
      assert.deepEqual([reply.body.alerts.triggered, reply.body.alerts.resolved], [0, 0]);
      await server.stop();

      server = await startTestServer(testConfig(db.url), { clock });
      clock.advance(9 * MINUTE); // cpu.high pending since the first run: `for` 10 minutes has passed
      await reportAll(91);
      reply = await call(server, 'POST');
      assert.deepEqual([reply.body.alerts.triggered, reply.body.alerts.resolved], [1, 0]);
      await server.stop();
      const open = await db.knex('alerts').where({ state: 'open' }).orderBy('rule_key').pluck('rule_key');
      assert.deepEqual(open, ['cpu.high', 'mem.oom', 'system.rebooted']);
    } finally {
      await db.drop();
    }
  });
});
