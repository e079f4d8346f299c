/**
 * Agent settings in the ingest answer, through the whole app: layering (cluster, then the
 * system on top), secrets in clear only to the agent they belong to, the cache that writes
 * through the API empty at once, a system moved to another cluster, and a secret that no
 * longer opens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signAgentToken } from '../testing/agent-token.js';
import { FakeClock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';
import { EFFECTIVE_CACHE_TTL_MS } from './service.js';

const SECRET = 'agent-settings-webhook-secret-0123456789abcdef';
const URL = '/api/agent-settings';

describe('agent settings in the answer to the agent', () => {
  const clock = new FakeClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const t = useTestServer({ WEBHOOK_SECRET: SECRET }, { clock });
  let counter = 0;

  async function signedInAdmin(): Promise<Client> {
    const account = await createAccount(t.db.knex, { role: 'ADMIN' });
    const client = new Client(t.server.url);
    await client.signIn(account.email, account.password);
    return client;
  }

  async function cluster(customerId: number): Promise<number> {
    const [row] = await t.db
      .knex('clusters')
      .insert({ customer_id: customerId, name: `c-${++counter}`, enrollment_key: randomToken(16) })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  /** A system bound to its agent key (as after its first report), and a way to report as its agent. */
  async function agent(customerId: number, clusterId: number | null) {
    const sub = `machine-${++counter}`;
    const ak = randomToken(32);
    const [row] = await t.db
      .knex('systems')
      .insert({ customer_id: customerId, cluster_id: clusterId, name: sub, agent_id: sub, agent_key_hash: sha256(ak) })
      .returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    /** Reports once and returns the settings of the answer. */
    async function settings(): Promise<Record<string, unknown>> {
      const token = await signAgentToken(sub, { secret: SECRET, ak, now: clock.now() });
      const body = {
        agent: { version: '2.28.1', hostname: sub },
        reports: [
          {
            ts: new Date(clock.now().getTime() - ++counter).toISOString(),
            metrics: [{ name: 'cpu.usage_pct', value: 1 }],
          },
        ],
      };
      const reply = await fetch(`${t.server.url}/api/webhook/metrics`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await reply.json()) as { settings: Record<string, unknown>; settings_rev: string };
      assert.equal(reply.status, 200, JSON.stringify(answer));
      return answer.settings;
    }
    return { id, settings };
  }

  it('layers the cluster first and the system on top, and sends a secret in clear only to its own agent', async () => {
    const admin = await signedInAdmin();
    const customer = await createCustomer(t.db.knex);
    const prod = await cluster(customer);
    const a = await agent(customer, prod);
    const b = await agent(customer, prod);
    const add = (scope: { type: string; id: number }, key: string, value: string, secret = false) =>
      admin.post(URL, { scope, key, value, secret });
    await add({ type: 'cluster', id: prod }, 'interval', '30');
    await add({ type: 'cluster', id: prod }, 'log.level', 'info');
    await add({ type: 'system', id: a.id }, 'log.level', 'debug');
    await add({ type: 'system', id: a.id }, 'backup.token', 'A-ONLY-SECRET', true);

    assert.deepEqual(await a.settings(), { 'backup.token': 'A-ONLY-SECRET', interval: '30', 'log.level': 'debug' });
    const forB = await b.settings();
    assert.deepEqual(forB, { interval: '30', 'log.level': 'info' });
    assert.ok(!JSON.stringify(forB).includes('A-ONLY-SECRET'));

    // a cluster secret reaches every agent of the cluster, a system value overrides it for one
    await add({ type: 'cluster', id: prod }, 'backup.token', 'CLUSTER-SECRET', true);
    assert.equal((await a.settings())['backup.token'], 'A-ONLY-SECRET');
    assert.equal((await b.settings())['backup.token'], 'CLUSTER-SECRET');
  });

  it('sends a change made through the API with the next answer, and one made by SQL within the cache time', async () => {
    const admin = await signedInAdmin();
    const customer = await createCustomer(t.db.knex);
    const prod = await cluster(customer);
    const a = await agent(customer, prod);
    const created = await admin.post(URL, { scope: { type: 'cluster', id: prod }, key: 'interval', value: '30' });
    assert.deepEqual(await a.settings(), { interval: '30' });

    await admin.patch(`${URL}/${created.body.id}`, { value: '60' });
    assert.deepEqual(await a.settings(), { interval: '60' }, 'a write through the API empties the cache');

    await t.db.knex('agent_settings').where({ id: created.body.id }).update({ value: '90' });
    assert.deepEqual(await a.settings(), { interval: '60' }, 'cached');
    clock.advance(EFFECTIVE_CACHE_TTL_MS);
    assert.deepEqual(await a.settings(), { interval: '90' }, 'after the cache time');

    await admin.delete(`${URL}/${created.body.id}`);
    assert.deepEqual(await a.settings(), {});
  });

  it("gives a system moved to another cluster that cluster's settings, keeping its own", async () => {
    const admin = await signedInAdmin();
    const customer = await createCustomer(t.db.knex);
    const [berlin, paris] = [await cluster(customer), await cluster(customer)];
    const a = await agent(customer, berlin);
    await admin.post(URL, { scope: { type: 'cluster', id: berlin }, key: 'site', value: 'berlin' });
    await admin.post(URL, { scope: { type: 'cluster', id: paris }, key: 'site', value: 'paris' });
    await admin.post(URL, { scope: { type: 'cluster', id: paris }, key: 'proxy', value: 'http://proxy.paris:3128' });
    await admin.post(URL, { scope: { type: 'system', id: a.id }, key: 'role', value: 'db' });
    assert.deepEqual(await a.settings(), { role: 'db', site: 'berlin' });

    assert.equal((await admin.patch(`/api/systems/${a.id}`, { clusterId: paris })).status, 200);
    const effective = (await admin.get(`${URL}?system=${a.id}`)).body.effective;
    assert.deepEqual(
      effective.map((e: { key: string; value: string }) => [e.key, e.value]),
      [
        ['proxy', 'http://proxy.paris:3128'],
        ['role', 'db'],
        ['site', 'paris'],
      ],
      'the console shows the new layers at once',
    );
    clock.advance(EFFECTIVE_CACHE_TTL_MS);
    assert.deepEqual(await a.settings(), { proxy: 'http://proxy.paris:3128', role: 'db', site: 'paris' });

    await admin.patch(`/api/systems/${a.id}`, { clusterId: null });
    clock.advance(EFFECTIVE_CACHE_TTL_MS);
    assert.deepEqual(await a.settings(), { role: 'db' }, 'without a cluster only its own');
  });

  it('sends null for a secret that no longer opens, and logs it', async () => {
    const admin = await signedInAdmin();
    const customer = await createCustomer(t.db.knex);
    const prod = await cluster(customer);
    const a = await agent(customer, prod);
    const created = await admin.post(URL, {
      scope: { type: 'system', id: a.id },
      key: 'api.key',
      value: 'will-be-lost',
      secret: true,
    });
    await admin.post(URL, { scope: { type: 'system', id: a.id }, key: 'plain', value: 'still here' });
    // a value sealed for another row does not open here (associated data binds it to its row)
    const other = await admin.post(URL, { scope: { type: 'cluster', id: prod }, key: 'x', value: 'y', secret: true });
    const moved = await t.db.knex('agent_settings').where({ id: other.body.id }).first('value');
    await t.db.knex('agent_settings').where({ id: created.body.id }).update({ value: moved.value });
    clock.advance(EFFECTIVE_CACHE_TTL_MS);

    assert.deepEqual(await a.settings(), { 'api.key': null, plain: 'still here', x: 'y' });
    assert.ok(
      t.server.logs.messages().some((m) => m === 'Agent secret setting sent as null'),
      'logged',
    );
  });
});
