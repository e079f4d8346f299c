import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { createRedisBus } from '../bus/redis-bus.js';
import { FakeClock } from '../lib/clock.js';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { startServer, type RunningServer } from '../main.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { answerCheck, listening, testConfig } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';
import { captureLogger } from '../testing/logger.js';
import { SHARED_REDIS_URL, testPrefix } from '../testing/redis.js';
import { ALERT_TOPIC, type AlertEvent } from './alert-json.js';

const NOW = new Date('2026-11-22T12:00:00Z');

async function insertSystem(db: Knex, customerId: number, name: string): Promise<number> {
  const [row] = await db('systems').insert({ customer_id: customerId, name, hostname: name }).returning('id');
  return (row as { id: number }).id;
}

let minutes = 0;
async function insertAlert(
  db: Knex,
  systemId: number,
  customerId: number,
  fields: { ruleKey?: string; severity?: string; resolved?: boolean; instance?: string } = {},
): Promise<number> {
  minutes += 1;
  const startedAt = new Date(NOW.getTime() - 3_600_000 + minutes * 60_000);
  const [row] = await db('alerts')
    .insert({
      rule_key: fields.ruleKey ?? 'cpu.high',
      rule_kind: 'metric',
      system_id: systemId,
      customer_id: customerId,
      instance: fields.instance ?? `i${minutes}`, // open alerts are unique per (rule, system, instance)
      severity: fields.severity ?? 'WARNING',
      state: fields.resolved ? 'resolved' : 'open',
      value: 91.5,
      message: 'cpu.usage_pct is 91.5 (> 85)',
      started_at: startedAt,
      resolved_at: fields.resolved ? NOW : null,
    })
    .returning('id');
  return Number((row as { id: string }).id);
}

describe('/api/alerts', () => {
  let db: TestDatabase;
  let server: RunningServer & { url: string };
  let listener: Bus;
  const closers: (() => Promise<unknown>)[] = [];
  const events: AlertEvent[] = [];
  let mine: number;
  let theirs: number;
  let web: number;
  let dbSystem: number;
  let other: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  let stranger: Client;
  let operatorName: string;

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER', customerIds: number[] = []) {
    const account = await createAccount(db.knex, { role, customerIds });
    const client = new Client(server.url);
    await client.signIn(account.email, account.password);
    return { client, id: account.id };
  }

  before(async () => {
    db = await createTestDatabase();
    const prefix = testPrefix();
    const { log } = captureLogger();
    const running = await startServer(await listening(testConfig(db.url)), log, {
      instanceLock: false,
      redisPrefix: prefix,
      loginFailureDelayMs: 1,
      outermost: answerCheck().middleware,
      clock: new FakeClock(NOW),
    });
    if (!running) throw new Error('server did not start');
    server = { ...running, url: `http://127.0.0.1:${running.port}` };
    // a second bus on the same prefix hears what the server publishes, as the live hub would
    const publisher = createRedisClient(SHARED_REDIS_URL, log);
    const subscriber = createRedisClient(SHARED_REDIS_URL, log, { subscriber: true });
    await waitUntilReady(publisher, 2000);
    listener = createRedisBus({ publisher, subscriber, prefix, log });
    closers.push(
      () => listener.close(),
      () => publisher.quit(),
      () => subscriber.quit(),
    );
    await listener.subscribe(ALERT_TOPIC, (event) => events.push(event as AlertEvent));

    mine = await createCustomer(db.knex, 'Mine');
    theirs = await createCustomer(db.knex, 'Theirs');
    web = await insertSystem(db.knex, mine, 'web-01');
    dbSystem = await insertSystem(db.knex, mine, 'db-01');
    other = await insertSystem(db.knex, theirs, 'other-01');
    admin = (await signedIn('ADMIN')).client;
    const op = await signedIn('OPERATOR', [mine]);
    operator = op.client;
    operatorName = (await db.knex('users').where({ id: op.id }).first('name')).name;
    viewer = (await signedIn('VIEWER', [mine])).client;
    stranger = (await signedIn('OPERATOR', [theirs])).client;
  });
  after(async () => {
    await server.stop();
    for (const close of closers) await close();
    await db.drop();
  });

  it('lists the alerts of visible customers, newest first, with filters', async () => {
    const a1 = await insertAlert(db.knex, web, mine, { severity: 'CRITICAL' });
    const a2 = await insertAlert(db.knex, dbSystem, mine, { resolved: true });
    const a3 = await insertAlert(db.knex, other, theirs);
    const ids = async (client: Client, query = '') =>
      (await client.get(`/api/alerts${query}`)).body.map((a: { id: number }) => a.id);

    assert.deepEqual(await ids(admin), [a3, a2, a1]);
    assert.deepEqual(await ids(viewer), [a2, a1]);
    assert.deepEqual(await ids(viewer, '?state=open'), [a1]);
    assert.deepEqual(await ids(viewer, '?state=resolved'), [a2]);
    assert.deepEqual(await ids(admin, `?customer=${theirs}`), [a3]);
    assert.deepEqual(await ids(viewer, `?customer=${theirs}`), [], 'a foreign customer filter shows nothing');
    assert.deepEqual(await ids(admin, `?system=${web}`), [a1]);
    assert.deepEqual(await ids(admin, '?severity=CRITICAL'), [a1]);

    const [first] = (await viewer.get(`/api/alerts?system=${web}`)).body;
    assert.equal(first.systemName, 'web-01');
    assert.equal(first.customerName, 'Mine');
    assert.equal(first.customerTimeZone, 'UTC', "the customer's zone, for the times in the console");
    assert.equal(first.ruleKey, 'cpu.high');
    assert.equal(first.state, 'open');
    assert.equal(first.acknowledged, false);
    assert.equal(first.acknowledgedBy, null);
    await db.knex('alerts').delete();
  });

  it('pages with limit and before (keyset)', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await insertAlert(db.knex, web, mine, { instance: `/m${i}` }));
    const page1 = (await admin.get('/api/alerts?limit=2')).body.map((a: { id: number }) => a.id);
    assert.deepEqual(page1, [ids[4], ids[3]]);
    const page2 = (await admin.get(`/api/alerts?limit=2&before=${page1[1]}`)).body.map((a: { id: number }) => a.id);
    assert.deepEqual(page2, [ids[2], ids[1]]);
    await db.knex('alerts').delete();
  });

  it('refuses bad filters with the field named', async () => {
    for (const [query, field] of [
      ['state=closed', 'state'],
      ['severity=LOW', 'severity'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['before=x', 'before'],
      ['customer=-1', 'customer'],
      ['customer=99999999999', 'customer'],
      ['system=1e30', 'system'],
      ['before=1e30', 'before'],
    ]) {
      const reply = await admin.get(`/api/alerts?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.details.field, field, query);
    }
  });

  it('shows one alert to those who may see its customer; 404 otherwise', async () => {
    const id = await insertAlert(db.knex, web, mine);
    const reply = await viewer.get(`/api/alerts/${id}`);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.id, id);
    assert.equal(reply.body.systemId, web);
    assert.equal((await stranger.get(`/api/alerts/${id}`)).status, 404);
    assert.equal((await admin.get('/api/alerts/999999')).status, 404);
    assert.equal((await admin.get('/api/alerts/abc')).status, 404);
    // ids past the columns' range are simply not there (not a database error)
    for (const path of [
      '/api/alerts/99999999999999999999',
      '/api/alert-rules/99999999999',
      '/api/event-rules/99999999999',
      '/api/maintenance-windows/99999999999',
    ])
      assert.equal((await admin.get(path)).status, 404, path);
  });

  it('acknowledges: viewer 403, operator without grant 404, with grant 200; published once', async () => {
    const id = await insertAlert(db.knex, web, mine, { severity: 'CRITICAL' });
    events.length = 0;
    assert.equal((await viewer.post(`/api/alerts/${id}/ack`, { note: 'mine' })).status, 403);
    assert.equal((await stranger.post(`/api/alerts/${id}/ack`, { note: 'theirs' })).status, 404);
    const untouched = await db.knex('alerts').where({ id }).first();
    assert.equal(untouched.acknowledged_at, null);

    const reply = await operator.post(`/api/alerts/${id}/ack`, { note: '  Looking into it  ' });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.state, 'open', 'an acknowledged alert stays open');
    assert.equal(reply.body.acknowledged, true);
    assert.equal(reply.body.acknowledgedAt, NOW.toISOString());
    assert.equal(reply.body.acknowledgedBy.name, operatorName);
    assert.equal(reply.body.ackNote, 'Looking into it');

    const again = await admin.post(`/api/alerts/${id}/ack`, {});
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'already_acknowledged');

    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(events.length, 1, 'one transition, published once');
    assert.equal(events[0]?.type, 'acknowledged');
    assert.equal(events[0]?.alert.id, id);
    assert.equal(events[0]?.alert.acknowledged, true);
    assert.equal(events[0]?.alert.customerId, mine);

    const detail = (await viewer.get(`/api/alerts/${id}`)).body;
    assert.equal(detail.acknowledgedBy.name, operatorName);
    assert.equal(detail.ackNote, 'Looking into it');
  });

  it('follows a system moved to another customer: its alerts and maintenance windows go with it', async () => {
    const moving = await insertSystem(db.knex, mine, 'moving-01');
    const open = await insertAlert(db.knex, moving, mine, { severity: 'CRITICAL' });
    const old = await insertAlert(db.knex, moving, mine, { resolved: true });
    const [window] = await db
      .knex('maintenance_windows')
      .insert({
        customer_id: mine,
        scope_type: 'system',
        scope_id: moving,
        name: 'disk swap',
        kind: 'once',
        starts_at: NOW,
        ends_at: new Date(NOW.getTime() + 3_600_000),
      })
      .returning<{ id: number }[]>('id');
    const moved = await admin.patch(`/api/systems/${moving}`, { customerId: theirs });
    assert.equal(moved.status, 200);

    // the old customer's accounts no longer see or change anything of it
    assert.equal((await viewer.get(`/api/alerts/${open}`)).status, 404);
    assert.ok(!(await viewer.get(`/api/alerts?system=${moving}`)).body.some((a: { id: number }) => a.id === old));
    assert.equal((await operator.post(`/api/alerts/${open}/ack`, { note: 'not mine any more' })).status, 404);
    assert.equal((await operator.get(`/api/maintenance-windows/${window?.id}`)).status, 404);
    assert.equal((await operator.delete(`/api/maintenance-windows/${window?.id}`)).status, 404);
    // the new customer's operator sees its history and acknowledges it
    const history = (await stranger.get(`/api/alerts?system=${moving}`)).body as { id: number; customerId: number }[];
    assert.deepEqual(history.map((a) => a.id).sort(), [open, old].sort());
    assert.ok(history.every((a) => a.customerId === theirs));
    assert.equal((await stranger.post(`/api/alerts/${open}/ack`, {})).status, 200);
    assert.equal((await stranger.get(`/api/maintenance-windows/${window?.id}`)).body.customerId, theirs);
  });

  it('refuses to acknowledge a resolved alert (409) and a note that is too long (400)', async () => {
    const resolved = await insertAlert(db.knex, web, mine, { resolved: true });
    events.length = 0;
    const reply = await admin.post(`/api/alerts/${resolved}/ack`, { note: 'late' });
    assert.equal(reply.status, 409);
    assert.equal(reply.body.code, 'alert_resolved');
    const open = await insertAlert(db.knex, web, mine);
    const long = await admin.post(`/api/alerts/${open}/ack`, { note: 'x'.repeat(1001) });
    assert.equal(long.status, 400);
    assert.equal(long.body.details.field, 'note');
    assert.equal((await db.knex('alerts').where({ id: open }).first()).acknowledged_at, null);
    const plain = await admin.post(`/api/alerts/${open}/ack`);
    assert.equal(plain.status, 200);
    assert.equal(plain.body.ackNote, null);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      events.map((e) => [e.type, e.alert.id]),
      [['acknowledged', open]],
    );
  });
});
