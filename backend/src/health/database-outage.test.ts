/**
 * The database restarted under the running app (a private cluster, stopped and started by the test):
 * meanwhile every route answers 503 with Retry-After instead of 500, health says degraded, agents get
 * 503 and keep their reports; once it is back the same process serves again, stores what agents
 * send, and holds its instance lock again. Nothing is restarted by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../../db/connection.js';
import { runMigrations } from '../../../db/migrate.js';
import { SimulatedAgent } from '../../../ops/agent-sim/agent.js';
import { startServer, type RunningServer } from '../main.js';
import { PASSWORD } from '../testing/accounts.js';
import { answerCheck, listening, testConfig } from '../testing/app.js';
import { Client } from '../testing/http.js';
import { captureLogger, type CapturedLogger } from '../testing/logger.js';
import { waitFor } from '../testing/net.js';
import { createDatabase, startPrivatePostgres, type PrivatePostgres } from '../testing/private-postgres.js';
import { testPrefix } from '../testing/redis.js';

const WEBHOOK_SECRET = 'outage-webhook-secret-0123456789abcdef0123';

describe('the database restarted under the running app', () => {
  let cluster: PrivatePostgres;
  let server: RunningServer;
  let logs: CapturedLogger;
  let client: Client;
  let agent: SimulatedAgent;

  before(async () => {
    cluster = await startPrivatePostgres();
    await createDatabase(cluster, 'argus');
    const knex = createKnex({ url: cluster.url('argus'), poolMax: 1 });
    await runMigrations(knex);
    await knex.destroy();
    logs = captureLogger();
    const running = await startServer(await listening(testConfig(cluster.url('argus'), { WEBHOOK_SECRET })), logs.log, {
      redisPrefix: testPrefix(),
      loginFailureDelayMs: 1,
      outermost: answerCheck().middleware,
    });
    assert.ok(running, 'the server started and took the instance lock');
    server = running;
    const url = `http://127.0.0.1:${server.port}`;
    client = new Client(url);
    await client.post('/api/setup', { name: 'Ada', email: 'ada@example.com', password: PASSWORD });
    assert.equal((await client.signIn('ada@example.com', PASSWORD)).status, 200);
    const customer = await client.post('/api/customers', { name: 'Outage Ltd' });
    const cluster_ = await client.post('/api/clusters', { customerId: customer.body.id, name: 'rack' });
    agent = new SimulatedAgent({
      url: `${url}/api/webhook/metrics`,
      secret: WEBHOOK_SECRET,
      enrollment: cluster_.body.enrollmentKey,
      sub: 'outage-host',
      hostname: 'outage-host',
      seed: 3,
    });
    agent.collect();
    assert.equal((await agent.send())?.status, 200);
  });

  after(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it('answers 503 with Retry-After while it is down, and serves again by itself once it is back', async () => {
    await cluster.stop();

    for (const [method, route] of [
      ['GET', '/api/systems'],
      ['GET', '/api/auth/options'],
      ['GET', '/api/customers'],
    ] as const) {
      const reply = await client.request(method, route);
      assert.equal(reply.status, 503, `${route}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.headers.get('retry-after'), '5', route);
      assert.deepEqual(reply.body, { error: 'Database unavailable: try again shortly', code: 'unavailable' });
    }
    // a sign-in that cannot be checked is not a wrong password
    const login = await new Client(client.baseUrl).post('/api/auth/login', {
      identifier: 'ada@example.com',
      password: PASSWORD,
    });
    assert.equal(login.status, 503);

    const health = await client.get('/api/health');
    assert.equal(health.status, 503);
    assert.equal(health.body.status, 'degraded');
    assert.equal(health.body.services.database, 'error');

    agent.collect();
    const refused = await agent.send();
    assert.equal(refused?.status, 503);
    assert.equal(agent.buffered, 1, 'the agent keeps the report');

    const warnings = logs.messages().filter((m) => m === 'Database unavailable: answering 503');
    assert.equal(warnings.length, 1, 'one warning for the outage, not one per request');
    assert.ok(!JSON.stringify(logs.lines()).includes('Unhandled error'), 'no 500 was logged');

    await cluster.start();
    await waitFor(async () => (await client.get('/api/systems')).status === 200, 30_000, 200);
    assert.equal((await client.get('/api/health')).body.status, 'ok');
    // the agent waits out Retry-After, then its buffered report is stored
    await waitFor(async () => (await agent.send(Date.now()))?.status === 200, 15_000, 500);
    assert.equal(agent.buffered, 0);
    const systems = await client.get('/api/systems');
    assert.equal(systems.body[0]?.hostname, 'outage-host');
    await waitFor(() => logs.messages().includes('Instance lock taken again'), 15_000, 200);
  });
});
