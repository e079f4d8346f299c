/**
 * The local lease in front of the Redis limit (leased.ts): one process accepts exactly the limit,
 * several processes sharing a key never more than it, and a lease ends with the store's window.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { SHARED_REDIS_URL, testPrefix } from '../testing/redis.js';
import { createRateLimiter, type RateLimiter, type RateLimitStore } from './rate-limiter.js';
import { withLocalLease } from './leased.js';

const clients: Redis[] = [];
after(() => clients.forEach((client) => client.disconnect()));

async function store(url = SHARED_REDIS_URL): Promise<RateLimitStore> {
  const client = createRedisClient(url, captureLogger().log);
  clients.push(client);
  await waitUntilReady(client, 1000);
  return { kind: 'redis', client, prefix: testPrefix() };
}

/** A process's limiter on a shared store: its own lease, the store's count. */
const leased = (shared: RateLimitStore, points: number, lease: number, durationSeconds = 60): RateLimiter =>
  withLocalLease(createRateLimiter(shared, { name: 'reports', points, durationSeconds }, captureLogger().log), lease);

async function acceptedOf(limiter: RateLimiter, key: string, attempts: number, points = 1): Promise<number> {
  let accepted = 0;
  for (let i = 0; i < attempts; i++) if ((await limiter.consume(key, points)).allowed) accepted += points;
  return accepted;
}

describe('a rate limit with a local lease', () => {
  it('accepts exactly the limit in one process, then refuses with the retry time of the window', async () => {
    const limiter = leased(await store(), 50, 5);
    assert.equal(await acceptedOf(limiter, 'system-1', 50), 50);
    const refused = await limiter.consume('system-1');
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSeconds > 50 && refused.retryAfterSeconds <= 60, String(refused.retryAfterSeconds));
    assert.equal((await limiter.consume('system-2')).allowed, true, 'another key has its own budget');
  });

  it('accepts a request of many points that ends exactly at the limit, with a lease held', async () => {
    const limiter = leased(await store(), 700, 70);
    assert.equal((await limiter.consume('k', 500)).allowed, true);
    assert.equal((await limiter.consume('k', 200)).allowed, true, '700 in the window');
    assert.equal((await limiter.consume('k', 1)).allowed, false);
  });

  it('goes to the store once per lease, not once per request', async () => {
    const shared = await store();
    const inner = createRateLimiter(shared, { name: 'reports', points: 600, durationSeconds: 60 }, captureLogger().log);
    let calls = 0;
    const counting: RateLimiter = { ...inner, consume: (key, points) => (calls++, inner.consume(key, points)) };
    const limiter = withLocalLease(counting, 60);
    assert.equal(await acceptedOf(limiter, 'k', 122), 122);
    assert.equal(calls, 2, 'two leases of 61 points for 122 requests');
    assert.equal((await inner.peek('k')).consumed, 122, 'the store counts what was accepted and leased');
  });

  it('never accepts more than the limit across processes sharing the key', async () => {
    const shared = await store();
    const processes = [leased(shared, 100, 10), leased(shared, 100, 10), leased(shared, 100, 10)];
    let accepted = 0;
    for (let round = 0; round < 60; round++)
      for (const limiter of processes) accepted += await acceptedOf(limiter, 'shared', 1);
    assert.ok(accepted <= 100, `${accepted} accepted`);
    assert.ok(accepted >= 100 - 2 * 10, `refused at most two unspent leases early: ${accepted}`);
  });

  it('ends a lease with the window of the store', async () => {
    const limiter = leased(await store(), 5, 2, 1);
    assert.equal(await acceptedOf(limiter, 'k', 6), 5);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal(await acceptedOf(limiter, 'k', 6), 5, 'a new window, a full budget again');
  });

  it('fails open as the store does, leasing nothing', async () => {
    const limiter = leased(await store(`redis://127.0.0.1:${await freePort()}`), 5, 2);
    assert.equal(await acceptedOf(limiter, 'k', 12), 12);
  });
});
