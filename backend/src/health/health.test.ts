import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, testConfig } from '../testing/app.js';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../testing/database.js';
import { freePort, waitFor } from '../testing/net.js';
import { startPrivateRedis } from '../testing/redis.js';

async function health(url: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${url}/api/health`);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    ms: Date.now() - started,
  };
}

describe('GET /api/health', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('answers 200 ok with both services named when PostgreSQL and Redis answer', async () => {
    const server = await startTestServer(testConfig(db.url));
    try {
      const { status, body } = await health(server.url);
      assert.equal(status, 200);
      assert.equal(body['status'], 'ok');
      assert.deepEqual(body['services'], { database: 'ok', redis: 'ok' });
      assert.ok(!Number.isNaN(Date.parse(String(body['timestamp']))));
      assert.equal(body['notUsed'], undefined, 'Redis is used');
    } finally {
      await server.stop();
    }
  });

  it('names Redis as not used when the instance runs on the in-memory bus (the demo)', async () => {
    const server = await startTestServer(testConfig(db.url, { REDIS_URL: 'memory://' }));
    try {
      const { status, body } = await health(server.url);
      assert.equal(status, 200);
      assert.deepEqual(body['notUsed'], ['redis']);
    } finally {
      await server.stop();
    }
  });

  it('answers 503 degraded within 3 s when its Redis is stopped, and recovers when it is back', async () => {
    const redis = await startPrivateRedis();
    const server = await startTestServer(testConfig(db.url, { REDIS_URL: redis.url }));
    try {
      assert.equal((await health(server.url)).status, 200);
      await redis.stop();
      const down = await health(server.url);
      assert.equal(down.status, 503);
      assert.equal(down.body['status'], 'degraded');
      assert.deepEqual(down.body['services'], { database: 'ok', redis: 'error' });
      assert.ok(down.ms < 3000, `answered in ${down.ms} ms`);

      await redis.start();
      await waitFor(async () => (await health(server.url)).status === 200, 10_000, 200);
    } finally {
      await server.stop();
      await redis.stop();
    }
  });

  it('answers 503 within 3 s when Redis was never reachable', async () => {
    const port = await freePort();
    const server = await startTestServer(testConfig(db.url, { REDIS_URL: `redis://127.0.0.1:${port}` }));
    try {
      const result = await health(server.url);
      assert.equal(result.status, 503);
      assert.deepEqual(result.body['services'], { database: 'ok', redis: 'error' });
      assert.ok(result.ms < 3000, `answered in ${result.ms} ms`);
    } finally {
      await server.stop();
    }
  });

  it('answers 503 with database error when PostgreSQL does not answer', async () => {
    const server = await startTestServer(testConfig(databaseUrl('argus_no_such_database')));
    try {
      const result = await health(server.url);
      assert.equal(result.status, 503);
      assert.deepEqual(result.body['services'], { database: 'error', redis: 'ok' });
      assert.ok(result.ms < 3000, `answered in ${result.ms} ms`);
    } finally {
      await server.stop();
    }
  });
});
