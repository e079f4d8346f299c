/**
 * The live channel across the life of the process: restarts (no replay from
 * another run), expiry on the server's clock, a Redis outage, and SIGTERM.
 */
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { auditTrailOn } from '../testing/audit.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AlertEvent } from '../alerts/alert-json.js';
import { FakeClock, systemClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { bearer, Client } from '../testing/http.js';
import { freePort, waitFor } from '../testing/net.js';
import { SHARED_REDIS_URL, startPrivateRedis, type PrivateRedis } from '../testing/redis.js';
import { startScript } from '../testing/script.js';
import { createTokensRepo } from '../tokens/repo.js';
import { createTokensService } from '../tokens/service.js';
import { LiveClient, quietFor } from '../testing/live-client.js';
import { barrier } from '../testing/live-fixtures.js';
import { ManualTicker } from './ticker.js';

function alertEvent(id: number, customerId: number, systemId: number): AlertEvent {
  return {
    type: 'raised',
    alert: {
      id,
      ruleKey: 'cpu.high',
      severity: 'WARNING',
      systemId,
      customerId,
      instance: '',
      value: 91,
      message: 'CPU above 85 %',
      state: 'open',
      acknowledged: false,
      startedAt: new Date().toISOString(),
      resolvedAt: null,
    },
  };
}

async function adminToken(db: TestDatabase): Promise<string> {
  const admin = await createAccount(db.knex, { role: 'ADMIN' });
  return (
    await createTokensService({
      repo: createTokensRepo(db.knex),
      clock: systemClock,
      audit: auditTrailOn(db.knex),
    }).create(SYSTEM_ACTOR, admin.id, 'live', null)
  ).token;
}

async function fleet(db: TestDatabase) {
  const customerId = await createCustomer(db.knex);
  const [row] = await db
    .knex('systems')
    .insert({ customer_id: customerId, name: 'host' })
    .returning<{ id: number }[]>('id');
  return { customerId, systemId: (row as { id: number }).id };
}

describe('live channel across restarts', () => {
  let db: TestDatabase;
  const servers: TestServer[] = [];
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await db.drop();
  });

  it('closes with 1001 on shutdown and replays nothing from the previous run after a restart', async () => {
    const { customerId, systemId } = await fleet(db);
    const token = await adminToken(db);
    const first = await startTestServer(testConfig(db.url));
    servers.push(first);
    const live = await LiveClient.open(first.url, { headers: bearer(token) });
    await live.subscribe('al', 'alert');
    await barrier(live);
    await first.bus.publish('alert', alertEvent(1, customerId, systemId));
    const seen = await live.next((f) => f['t'] === 'msg');
    await first.bus.publish('alert', alertEvent(2, customerId, systemId)); // the client also sees this one…
    await live.next((f) => f['t'] === 'msg' && f['data'].alert.id === 2);
    await first.stop();
    assert.equal((await live.closed).code, 1001);

    const second = await startTestServer(testConfig(db.url));
    servers.push(second);
    assert.notEqual(second.live.runId, first.live.runId);
    const again = await LiveClient.open(second.url, { headers: bearer(token) });
    await again.subscribe('al', 'alert', seen['id']);
    await barrier(again);
    await quietFor(200);
    assert.equal(again.messages('al').length, 0, '…but nothing is replayed from another run');
    const snap = await again.subscribe('c', 'alerts.counts');
    assert.equal(snap?.['t'], 'snap', 'the snapshot tells the current state instead');
    await second.bus.publish('alert', alertEvent(3, customerId, systemId));
    const fresh = await again.next((f) => f['t'] === 'msg');
    assert.ok(fresh['id'].startsWith(`${second.live.runId}-`));
    again.close();
  });
});

describe('live channel on the server clock', () => {
  const clock = new FakeClock(new Date());
  const ticker = new ManualTicker();
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url), { clock, live: { ticker } });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('closes with 4401 at the first ping after a token expired', async () => {
    const account = await createAccount(db.knex, { role: 'VIEWER' });
    const browser = new Client(server.url);
    await browser.signIn(account.email, account.password);
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const { token } = (await browser.post('/api/tokens', { name: 'short', expiresAt })).body;
    const live = await LiveClient.open(server.url, { headers: bearer(token) });
    ticker.tick();
    await quietFor(200);
    assert.equal(live.ws.readyState, live.ws.OPEN, 'still valid');
    clock.advance(3_600_001);
    ticker.tick();
    assert.equal((await live.closed).code, 4401);
  });
});

describe('live channel and a Redis outage', () => {
  let redis: PrivateRedis;
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    redis = await startPrivateRedis();
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url, { REDIS_URL: redis.url }));
  });
  after(async () => {
    await server.stop();
    await db.drop();
    await redis.stop();
  });

  it('keeps the app up while Redis is down and resumes delivery when it is back, without a restart', async () => {
    const { customerId, systemId } = await fleet(db);
    const live = await LiveClient.open(server.url, { headers: bearer(await adminToken(db)) });
    await live.subscribe('al', 'alert');
    await barrier(live);
    await server.bus.publish('alert', alertEvent(1, customerId, systemId));
    await live.next((f) => f['t'] === 'msg');

    await redis.stop();
    await waitFor(async () => (await fetch(`${server.url}/api/health`)).status === 503);
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { services: { redis: string } };
    assert.equal(health.services.redis, 'error');
    assert.equal(await server.bus.publish('alert', alertEvent(2, customerId, systemId)), false);
    const stillUp = await new Client(server.url).get('/api/auth/options');
    assert.ok(stillUp.status < 500, 'the app answers');

    await redis.start();
    // publish until the reconnected subscriber passes one through
    let id = 2;
    await waitFor(
      async () => {
        id += 1;
        await server.bus.publish('alert', alertEvent(id, customerId, systemId));
        await quietFor(100);
        return live.messages('al').length >= 2;
      },
      20_000,
      200,
    );
    assert.equal(live.ws.readyState, live.ws.OPEN, 'the socket stayed open through the outage');
    live.close();
  });

  it('starts while Redis is down and delivers once Redis comes up', async () => {
    const { customerId, systemId } = await fleet(db);
    await redis.stop();
    const late = await startTestServer(testConfig(db.url, { REDIS_URL: redis.url }));
    try {
      const live = await LiveClient.open(late.url, { headers: bearer(await adminToken(db)) });
      await live.subscribe('al', 'alert');
      await redis.start();
      let id = 100;
      await waitFor(
        async () => {
          id += 1;
          await late.bus.publish('alert', alertEvent(id, customerId, systemId));
          await quietFor(100);
          return live.messages('al').length >= 1;
        },
        20_000,
        200,
      );
      live.close();
    } finally {
      await late.stop();
    }
  });
});

describe('live channel and SIGTERM', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('closes open sockets with 1001 when the process gets SIGTERM', async () => {
    const port = await freePort();
    const token = await adminToken(db);
    const server = startScript('backend/src/main.ts', [], {
      DATABASE_URL: db.url,
      REDIS_URL: SHARED_REDIS_URL,
      AUTH_SECRET: 'live-sigterm-test-secret-0123456789abcdef',
      HOSTNAME: '127.0.0.1',
      NODE_ENV: 'test',
      PORT: String(port),
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${url}/api/health`)).status === 200, 20_000, 100);
      const live = await LiveClient.open(url, { headers: bearer(token) });
      await live.subscribe('c', 'alerts.counts');
      server.child.kill('SIGTERM');
      const closed = await live.closed;
      assert.equal(closed.code, 1001);
      assert.equal(await server.exited, 0, server.output());
    } finally {
      server.kill('SIGKILL');
    }
  });
});
