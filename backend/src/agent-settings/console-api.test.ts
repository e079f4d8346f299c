/**
 * /api/agent-settings as the console and automation use it: rights per role, validation, and
 * secrets that are write-only (never in any console answer) and sealed at rest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { places } from '../secrets/places.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { bearer, Client } from '../testing/http.js';
import { createSecretBox } from '../lib/secret-box.js';
import { captureLogger } from '../testing/logger.js';

const URL = '/api/agent-settings';
const AUTH_SECRET = 'test-auth-secret-that-is-long-enough-0123456789'; // testConfig's

async function signedIn(
  server: TestServer,
  db: TestDatabase,
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER',
  ids: number[] = [],
) {
  const account = await createAccount(db.knex, { role, customerIds: ids });
  const client = new Client(server.url);
  await client.signIn(account.email, account.password);
  return client;
}

async function insertCluster(db: TestDatabase, customerId: number, name: string): Promise<number> {
  const [row] = await db
    .knex('clusters')
    .insert({ customer_id: customerId, name, enrollment_key: `key-${name}-0123456789abcdef` })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

async function insertSystem(db: TestDatabase, customerId: number, clusterId: number | null, name: string) {
  const [row] = await db
    .knex('systems')
    .insert({ customer_id: customerId, cluster_id: clusterId, name, hostname: name, agent_id: `agent-${name}` })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

describe('/api/agent-settings', () => {
  let db: TestDatabase;
  let server: TestServer;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  let outsider: Client;
  let mine: number;
  let theirs: number;
  let myCluster: number;
  let theirCluster: number;
  let mySystem: number;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    mine = await createCustomer(db.knex, 'Mine');
    theirs = await createCustomer(db.knex, 'Theirs');
    myCluster = await insertCluster(db, mine, 'prod');
    theirCluster = await insertCluster(db, theirs, 'other');
    mySystem = await insertSystem(db, mine, myCluster, 'web-01');
    admin = await signedIn(server, db, 'ADMIN');
    operator = await signedIn(server, db, 'OPERATOR', [mine]);
    viewer = await signedIn(server, db, 'VIEWER', [mine]);
    outsider = await signedIn(server, db, 'OPERATOR', [theirs]);
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  const count = async () => Number((await db.knex('agent_settings').count<{ n: string }[]>('* as n'))[0]?.n);

  it('lets an operator of the customer create, change and delete settings of its cluster and systems', async () => {
    const created = await operator.post(URL, {
      scope: { type: 'cluster', id: myCluster },
      key: 'log.level',
      value: 'info',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(
      { ...created.body, updatedAt: undefined },
      {
        id: created.body.id,
        scope: { type: 'cluster', id: myCluster },
        key: 'log.level',
        secret: false,
        value: 'info',
        updatedAt: undefined,
      },
    );
    const changed = await operator.patch(`${URL}/${created.body.id}`, { value: 'debug' });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.value, 'debug');
    const onSystem = await operator.post(URL, {
      scope: { type: 'system', id: mySystem },
      key: 'log.level',
      value: 'warn',
    });
    assert.equal(onSystem.status, 201, 'the same key on another scope');
    assert.equal((await operator.delete(`${URL}/${onSystem.body.id}`)).status, 204);
    assert.equal((await operator.delete(`${URL}/${created.body.id}`)).status, 204);
    assert.equal(await count(), 0);
  });

  it('lets a viewer read but never write; another customer is a 404 for reads and writes', async () => {
    const setting = await admin.post(URL, { scope: { type: 'cluster', id: myCluster }, key: 'interval', value: '30' });
    const listed = await viewer.get(`${URL}?cluster=${myCluster}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.settings.map((s: { key: string; value: string }) => [s.key, s.value]),
      [['interval', '30']],
    );
    const before = await db.knex('agent_settings').select('*').orderBy('id');
    assert.equal(
      (await viewer.post(URL, { scope: { type: 'cluster', id: myCluster }, key: 'x', value: '1' })).status,
      403,
    );
    assert.equal((await viewer.patch(`${URL}/${setting.body.id}`, { value: '60' })).status, 403);
    assert.equal((await viewer.delete(`${URL}/${setting.body.id}`)).status, 403);

    assert.equal((await outsider.get(`${URL}?cluster=${myCluster}`)).status, 404);
    assert.equal((await outsider.get(`${URL}?system=${mySystem}`)).status, 404);
    assert.equal((await outsider.patch(`${URL}/${setting.body.id}`, { value: '60' })).status, 404);
    assert.equal((await outsider.delete(`${URL}/${setting.body.id}`)).status, 404);
    const foreign = await outsider.post(URL, { scope: { type: 'system', id: mySystem }, key: 'x', value: '1' });
    assert.equal(foreign.status, 404);
    assert.equal((await operator.get(`${URL}?cluster=${theirCluster}`)).status, 404);
    assert.equal((await admin.get(`${URL}?cluster=${theirCluster}`)).status, 200, 'an admin sees every customer');
    assert.deepEqual(await db.knex('agent_settings').select('*').orderBy('id'), before, 'nothing changed');
    await admin.delete(`${URL}/${setting.body.id}`);
  });

  it("refuses a viewer's API token on writes, and answers 401 without credentials", async () => {
    const viewerAccount = await createAccount(db.knex, { role: 'VIEWER', customerIds: [mine] });
    const browser = new Client(server.url);
    await browser.signIn(viewerAccount.email, viewerAccount.password);
    const token = (await browser.post('/api/tokens', { name: 'script' })).body.token;
    const script = new Client(server.url);
    assert.equal((await script.get(`${URL}?cluster=${myCluster}`, bearer(token))).status, 200);
    const write = await script.post(
      URL,
      { scope: { type: 'cluster', id: myCluster }, key: 'x', value: '1' },
      bearer(token),
    );
    assert.equal(write.status, 403);
    assert.equal((await new Client(server.url).get(`${URL}?cluster=${myCluster}`)).status, 401);
    assert.equal(await count(), 0);
  });

  it('answers 400 naming the field for bad input, and stores nothing', async () => {
    const scope = { type: 'cluster', id: myCluster };
    const cases: [unknown, string][] = [
      [{ scope, key: 'Upper', value: '1' }, 'key'],
      [{ scope, key: '1starts.with.digit', value: '1' }, 'key'],
      [{ scope, key: `k${'a'.repeat(64)}`, value: '1' }, 'key'],
      [{ scope, key: 'has space', value: '1' }, 'key'],
      [{ scope, value: '1' }, 'key'],
      [{ scope, key: 'ok', value: 5 }, 'value'],
      [{ scope, key: 'ok' }, 'value'],
      [{ scope, key: 'ok', value: 'bell\u0007' }, 'value'],
      [{ scope, key: 'ok', value: 'x'.repeat(8193) }, 'value'],
      [{ scope, key: 'ok', value: '1', secret: 'yes' }, 'secret'],
      [{ scope: { type: 'customer', id: mine }, key: 'ok', value: '1' }, 'scope.type'],
      [{ scope: { type: 'cluster', id: 'x' }, key: 'ok', value: '1' }, 'scope.id'],
      [{ scope, key: 'ok', value: '1', extra: true }, ''],
    ];
    for (const [body, field] of cases) {
      const reply = await operator.post(URL, body);
      assert.equal(reply.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${reply.status}`);
      if (field) assert.equal(reply.body.details?.field, field, JSON.stringify(reply.body));
    }
    for (const query of ['', `?cluster=${myCluster}&system=${mySystem}`, '?cluster=abc', '?system=99999999999']) {
      const reply = await operator.get(`${URL}${query}`);
      assert.equal(reply.status, 400, `${query} → ${reply.status}`);
      assert.ok(reply.body.details?.field, JSON.stringify(reply.body));
    }
    assert.equal((await operator.get(`${URL}?system=999999`)).status, 404, 'an unknown scope');
    assert.equal(
      (await operator.post(URL, { scope: { type: 'system', id: 999999 }, key: 'ok', value: '1' })).status,
      404,
    );
    assert.equal(await count(), 0);
  });

  it('answers 409 for a key the scope already has, and keeps the first', async () => {
    const body = { scope: { type: 'cluster', id: myCluster }, key: 'dup', value: 'first' };
    const first = await operator.post(URL, body);
    const second = await operator.post(URL, { ...body, value: 'second' });
    assert.equal(second.status, 409);
    const rows = await db.knex('agent_settings').where({ key: 'dup' });
    assert.deepEqual(
      rows.map((r: { value: string }) => r.value),
      ['first'],
    );
    await operator.delete(`${URL}/${first.body.id}`);
  });

  it('never returns a secret value, stores it sealed to its row, and keeps it when PATCH leaves it out', async () => {
    const plaintext = 'sk-live-VERY-SECRET-0123456789';
    const created = await operator.post(URL, {
      scope: { type: 'system', id: mySystem },
      key: 'api.token',
      value: plaintext,
      secret: true,
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.value, null);
    assert.equal(created.body.secret, true);

    const raw = await db.knex('agent_settings').where({ id: created.body.id }).first();
    assert.ok(!raw.value.includes(plaintext), 'not stored in clear');
    assert.match(raw.value, /^v1\.auth\./);
    const box = createSecretBox({ settingsEncryptionKey: null, authSecret: AUTH_SECRET }, captureLogger().log);
    assert.equal(box.open(raw.value, places.agentSetting(created.body.id)), plaintext, 'sealed to its own place');

    // a new secret flag without a value: the stored one stays
    const renamedFlag = await operator.patch(`${URL}/${created.body.id}`, { secret: true });
    assert.equal(renamedFlag.status, 200);
    assert.equal(renamedFlag.body.value, null);
    const kept = await db.knex('agent_settings').where({ id: created.body.id }).first();
    assert.equal(box.open(kept.value, places.agentSetting(created.body.id)), plaintext);

    // making it plain needs a new value: the old one is never revealed
    const reveal = await operator.patch(`${URL}/${created.body.id}`, { secret: false });
    assert.equal(reveal.status, 400);
    assert.equal(reveal.body.details.field, 'value');

    for (const client of [admin, operator, viewer]) {
      for (const path of [
        `${URL}?system=${mySystem}`,
        `${URL}?cluster=${myCluster}`,
        `/api/systems/${mySystem}`,
        '/api/systems',
      ]) {
        const reply = await client.get(path);
        assert.equal(reply.status, 200, path);
        assert.ok(!JSON.stringify(reply.body).includes(plaintext), `${path} leaks the secret`);
      }
    }
    const replaced = await operator.patch(`${URL}/${created.body.id}`, { value: 'rotated-value' });
    assert.equal(replaced.body.value, null);
    const plain = await operator.patch(`${URL}/${created.body.id}`, { value: 'public now', secret: false });
    assert.equal(plain.body.value, 'public now');
    assert.equal((await db.knex('agent_settings').where({ id: created.body.id }).first()).value, 'public now');
    // and back: the plain value is sealed in place
    await operator.patch(`${URL}/${created.body.id}`, { secret: true });
    const resealed = await db.knex('agent_settings').where({ id: created.body.id }).first();
    assert.equal(box.open(resealed.value, places.agentSetting(created.body.id)), 'public now');
    await operator.delete(`${URL}/${created.body.id}`);
  });

  it('shows a system its effective settings, cluster first and its own on top, secrets masked', async () => {
    const cluster = { type: 'cluster', id: myCluster };
    const system = { type: 'system', id: mySystem };
    const ids = [
      (await admin.post(URL, { scope: cluster, key: 'interval', value: '30' })).body.id,
      (await admin.post(URL, { scope: cluster, key: 'log.level', value: 'info' })).body.id,
      (await admin.post(URL, { scope: cluster, key: 'db.password', value: 'cluster-pw', secret: true })).body.id,
      (await admin.post(URL, { scope: system, key: 'log.level', value: 'debug' })).body.id,
    ];
    const reply = await viewer.get(`${URL}?system=${mySystem}`);
    assert.deepEqual(
      reply.body.settings.map((s: { key: string }) => s.key),
      ['log.level'],
      'its own only',
    );
    assert.deepEqual(reply.body.effective, [
      { key: 'db.password', secret: true, value: null, from: cluster },
      { key: 'interval', secret: false, value: '30', from: cluster },
      { key: 'log.level', secret: false, value: 'debug', from: system },
    ]);
    assert.equal((await viewer.get(`${URL}?cluster=${myCluster}`)).body.effective, undefined);
    for (const id of ids) await admin.delete(`${URL}/${id}`);
  });

  it('shows an agent update failure on the system page data until an admin retries', async () => {
    await db.knex('systems').where({ id: mySystem }).update({ update_failed_version: '2.27.0', update_failures: 3 });
    assert.equal((await viewer.get(`/api/systems/${mySystem}`)).body.updateFailedVersion, '2.27.0');
    assert.equal((await operator.post(`/api/systems/${mySystem}/retry-update`)).status, 403);
    assert.equal((await admin.post(`/api/systems/${mySystem}/retry-update`)).status, 204);
    assert.equal((await viewer.get(`/api/systems/${mySystem}`)).body.updateFailedVersion, null);
  });

  it('goes with its cluster or system when that is deleted', async () => {
    const cluster = await insertCluster(db, mine, 'short-lived');
    const system = await insertSystem(db, mine, cluster, 'short-lived-01');
    await admin.post(URL, { scope: { type: 'cluster', id: cluster }, key: 'a', value: '1' });
    await admin.post(URL, { scope: { type: 'system', id: system }, key: 'b', value: '2' });
    assert.equal(await count(), 2);
    assert.equal((await admin.delete(`/api/systems/${system}`)).status, 204);
    assert.equal(await count(), 1);
    assert.equal((await admin.delete(`/api/clusters/${cluster}`)).status, 204);
    assert.equal(await count(), 0);
  });
});
