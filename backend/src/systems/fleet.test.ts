import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';
import { MAX_POINTS, pickSource } from './service.js';

async function signedIn(
  server: TestServer,
  db: TestDatabase,
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER',
  customerIds: number[] = [],
) {
  const account = await createAccount(db.knex, { role, customerIds });
  const client = new Client(server.url);
  await client.signIn(account.email, account.password);
  return client;
}

async function createSystem(
  db: TestDatabase,
  customerId: number,
  clusterId: number | null,
  name: string,
): Promise<number> {
  const [row] = await db
    .knex('systems')
    .insert({ customer_id: customerId, cluster_id: clusterId, name, hostname: name, agent_id: `agent-${name}` })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

describe('customers, clusters and systems: rights', () => {
  let db: TestDatabase;
  let server: TestServer;
  let mine: number;
  let theirs: number;
  let myCluster: number;
  let mySystem: number;
  let theirSystem: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    admin = await signedIn(server, db, 'ADMIN');
    mine = (await admin.post('/api/customers', { name: 'Mine', timeZone: 'Europe/Berlin' })).body.id;
    theirs = await createCustomer(db.knex, 'Theirs');
    operator = await signedIn(server, db, 'OPERATOR', [mine]);
    viewer = await signedIn(server, db, 'VIEWER', [mine]);
    myCluster = (await operator.post('/api/clusters', { customerId: mine, name: 'Production' })).body.id;
    mySystem = await createSystem(db, mine, myCluster, 'web-01');
    theirSystem = await createSystem(db, theirs, null, 'db-01');
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('lets only an ADMIN manage customers, and checks the time zone', async () => {
    assert.equal((await operator.post('/api/customers', { name: 'Nope' })).status, 403);
    const bad = await admin.post('/api/customers', { name: 'Zone', timeZone: 'Mars/Olympus' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'timeZone');
    assert.equal((await admin.post('/api/customers', { name: 'mine' })).status, 409, 'names are unique, any case');
  });

  it('shows each account only its customers; another customer is a 404', async () => {
    assert.deepEqual(
      (await admin.get('/api/customers')).body.map((c: { name: string }) => c.name),
      ['Mine', 'Theirs'],
    );
    assert.deepEqual(
      (await viewer.get('/api/customers')).body.map((c: { name: string }) => c.name),
      ['Mine'],
    );
    assert.equal((await admin.patch(`/api/customers/${theirs}`, { notes: 'x' })).status, 200);
  });

  it('shows the enrollment key only to accounts that may write, and rotates it', async () => {
    const [seenByOperator] = (await operator.get('/api/clusters')).body;
    assert.match(seenByOperator.enrollmentKey, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(
      seenByOperator.installCommand,
      `printf 'Argus-Enrollment-Key: %s\\n' '${seenByOperator.enrollmentKey}' | ` +
        `curl -fsSL -H @- '${server.url}/api/agent/install.sh' | sh`,
    );
    const [seenByViewer] = (await viewer.get('/api/clusters')).body;
    assert.equal(seenByViewer.enrollmentKey, undefined);
    assert.equal(seenByViewer.installCommand, undefined);
    const rotated = await operator.post(`/api/clusters/${myCluster}/enrollment-key`);
    assert.notEqual(rotated.body.enrollmentKey, seenByOperator.enrollmentKey);
    assert.equal((await viewer.post(`/api/clusters/${myCluster}/enrollment-key`)).status, 403);
  });

  it('filters GET /api/systems for each role', async () => {
    const names = async (client: Client) =>
      (await client.get('/api/systems')).body.map((s: { name: string }) => s.name);
    assert.deepEqual(await names(admin), ['web-01', 'db-01']);
    assert.deepEqual(await names(operator), ['web-01']);
    assert.deepEqual(await names(viewer), ['web-01']);
    const [system] = (await viewer.get('/api/systems')).body;
    assert.deepEqual(system.customer, { id: mine, name: 'Mine' });
    assert.deepEqual(system.cluster, { id: myCluster, name: 'Production' });
    assert.equal(system.status, 'PENDING');
    assert.deepEqual(system.openAlerts, { critical: 0, warning: 0, info: 0 });
    assert.equal((await viewer.get(`/api/systems/${theirSystem}`)).status, 404);
    assert.equal((await operator.patch(`/api/systems/${theirSystem}`, { name: 'x' })).status, 404);
  });

  it('lets an operator edit its systems but not move them to a customer it may not write', async () => {
    assert.equal((await viewer.patch(`/api/systems/${mySystem}`, { name: 'renamed' })).status, 403);
    const renamed = await operator.patch(`/api/systems/${mySystem}`, { name: 'web-01a', offlineAlerts: false });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.offlineAlerts, false);
    assert.equal((await operator.patch(`/api/systems/${mySystem}`, { customerId: theirs })).status, 403);
    const foreignCluster = await admin.post('/api/clusters', { customerId: theirs, name: 'Other' });
    const wrongCluster = await admin.patch(`/api/systems/${mySystem}`, { clusterId: foreignCluster.body.id });
    assert.equal(wrongCluster.status, 400);
    assert.equal(wrongCluster.body.details.field, 'clusterId');
    assert.equal((await operator.post(`/api/systems/${mySystem}/re-enroll`)).status, 403, 'ADMIN only');
    assert.equal((await admin.post(`/api/systems/${mySystem}/re-enroll`)).status, 204);
  });

  it('deletes a system with its samples', async () => {
    const id = await createSystem(db, mine, null, 'temp-01');
    await db.knex('metric_samples').insert({ time: new Date(), system_id: id, name: 'cpu.usage_pct', value: 1 });
    assert.equal((await operator.delete(`/api/systems/${id}`)).status, 204);
    assert.equal((await db.knex('metric_samples').where({ system_id: id })).length, 0);
  });
});

describe('chart data', () => {
  let db: TestDatabase;
  let server: TestServer;
  let admin: Client;
  let system: number;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    admin = await signedIn(server, db, 'ADMIN');
    system = await createSystem(db, await createCustomer(db.knex), null, 'chart-01');
    await db.knex.raw(
      `INSERT INTO metric_samples (time, system_id, name, instance, value)
       SELECT t, ?, 'cpu.usage_pct', '', extract(minute FROM t)
       FROM generate_series(now() - interval '10 days', now(), interval '1 minute') AS t`,
      [system],
    );
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('picks raw up to 2 days, 5m up to 30 days, else 1h, at most ~1000 points', () => {
    const day = 86_400_000;
    assert.deepEqual(pickSource(3_600_000, true), { source: 'raw', bucketSeconds: 4 });
    assert.equal(pickSource(2 * day, true).source, 'raw');
    assert.deepEqual(pickSource(7 * day, true), { source: '5m', bucketSeconds: 900 });
    assert.equal(pickSource(30 * day, true).source, '5m');
    assert.deepEqual(pickSource(400 * day, true), { source: '1h', bucketSeconds: 36_000 });
    assert.equal(pickSource(400 * day, false).source, 'raw', 'without TimescaleDB everything comes from raw rows');
    for (const range of [3_600_000, 2 * day, 30 * day, 400 * day]) {
      const { bucketSeconds } = pickSource(range, true);
      assert.ok(range / 1000 / bucketSeconds <= MAX_POINTS + 1);
    }
  });

  it('answers min/avg/max points from raw rows on plain PostgreSQL for any range', async () => {
    const to = new Date();
    const hour = await admin.get(
      `/api/systems/${system}/metrics?name=cpu.usage_pct&from=${new Date(to.getTime() - 3_600_000).toISOString()}&to=${to.toISOString()}`,
    );
    assert.equal(hour.status, 200, JSON.stringify(hour.body));
    assert.equal(hour.body.source, 'raw');
    assert.ok(hour.body.points.length >= 55 && hour.body.points.length <= 61, String(hour.body.points.length));
    const week = await admin.get(
      `/api/systems/${system}/metrics?name=cpu.usage_pct&from=${new Date(to.getTime() - 7 * 86_400_000).toISOString()}&to=${to.toISOString()}`,
    );
    assert.equal(week.body.source, 'raw');
    assert.ok(week.body.points.length <= MAX_POINTS + 1);
    const [t, avg, min, max] = week.body.points[10];
    assert.ok(typeof t === 'number' && min <= avg && avg <= max);
    assert.ok(max - min >= 9, 'a ~10-minute bucket spans ten one-minute samples');
    assert.ok(min >= 0 && max <= 59);
  });

  it('refuses a bad metric name or a range over 400 days', async () => {
    assert.equal((await admin.get(`/api/systems/${system}/metrics?name=CPU;drop`)).status, 400);
    const far = await admin.get(`/api/systems/${system}/metrics?name=cpu.usage_pct&from=2020-01-01T00:00:00Z`);
    assert.equal(far.status, 400);
  });

  it('lists the series a system reported in the last day', async () => {
    assert.deepEqual((await admin.get(`/api/systems/${system}/series`)).body, [
      { name: 'cpu.usage_pct', instance: '' },
    ]);
  });
});
