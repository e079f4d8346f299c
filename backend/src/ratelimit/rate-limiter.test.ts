import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { SHARED_REDIS_URL, testPrefix } from '../testing/redis.js';
import { createRateLimiter, type RateLimitStore } from './rate-limiter.js';

const clients: Redis[] = [];
after(() => clients.forEach((client) => client.disconnect()));

async function redisStore(url = SHARED_REDIS_URL): Promise<RateLimitStore> {
  const client = createRedisClient(url, captureLogger().log);
  clients.push(client);
  await waitUntilReady(client, 1000);
  return { kind: 'redis', client, prefix: testPrefix() };
}

for (const [name, makeStore] of [
  ['redis', () => redisStore()],
  ['memory', async (): Promise<RateLimitStore> => ({ kind: 'memory' })],
] as const) {
  describe(`${name} rate limiter`, () => {
    it('allows the configured number of attempts per key, then refuses with a retry time', async () => {
      const limiter = createRateLimiter(
        await makeStore(),
        { name: 'setup', points: 3, durationSeconds: 600 },
        captureLogger().log,
      );
      for (let i = 0; i < 3; i++) assert.equal((await limiter.consume('10.0.0.1')).allowed, true);
      const refused = await limiter.consume('10.0.0.1');
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterSeconds > 590 && refused.retryAfterSeconds <= 600, String(refused.retryAfterSeconds));
      assert.equal((await limiter.consume('10.0.0.2')).allowed, true, 'another address has its own budget');
    });

    it('forgets a key on reset', async () => {
      const limiter = createRateLimiter(
        await makeStore(),
        { name: 'login', points: 1, durationSeconds: 60 },
        captureLogger().log,
      );
      await limiter.consume('k');
      assert.equal((await limiter.consume('k')).allowed, false);
      await limiter.reset('k');
      assert.equal((await limiter.consume('k')).allowed, true);
    });

    it('gives back a point counted up front', async () => {
      const limiter = createRateLimiter(
        await makeStore(),
        { name: 'login', points: 2, durationSeconds: 60 },
        captureLogger().log,
      );
      await limiter.consume('k');
      await limiter.consume('k');
      await limiter.refund('k');
      assert.equal((await limiter.peek('k')).consumed, 1);
      assert.equal((await limiter.consume('k')).allowed, true);
      assert.equal((await limiter.consume('k')).allowed, false);
    });
  });
}

describe('rate limiter on a dead Redis', () => {
  it('fails open at normal latency and logs once', async () => {
    const logs = captureLogger();
    const store = await redisStore(`redis://127.0.0.1:${await freePort()}`);
    const limiter = createRateLimiter(store, { name: 'setup', points: 1, durationSeconds: 600 }, logs.log);
    const started = Date.now();
    for (let i = 0; i < 5; i++) assert.equal((await limiter.consume('10.0.0.1')).allowed, true);
    assert.ok(Date.now() - started < 1000, 'no waiting on a dead Redis');
    assert.equal(logs.messages().filter((m) => m.startsWith('Rate limiter store failed')).length, 1);
  });
});
