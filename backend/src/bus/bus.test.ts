import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, waitUntilReady } from '../lib/redis.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { SHARED_REDIS_URL, testPrefix } from '../testing/redis.js';
import type { Bus } from './bus.js';
import { createMemoryBus } from './memory-bus.js';
import { createRedisBus } from './redis-bus.js';

/** Subscribes (resolving once the subscription is registered) and gives the promise of the first event. */
async function nextEvent(bus: Bus, topic: string): Promise<{ received: Promise<unknown>; off: () => Promise<void> }> {
  let resolveEvent: (event: unknown) => void = () => undefined;
  const received = new Promise<unknown>((resolve) => (resolveEvent = resolve));
  const off = await bus.subscribe(topic, (event) => resolveEvent(event));
  return { received, off };
}

async function contractOf(name: string, makeBus: () => Promise<Bus>) {
  describe(`${name} bus`, () => {
    it('delivers a published event to subscribers of that topic only, as a copy', async () => {
      const bus = await makeBus();
      try {
        const others: unknown[] = [];
        const offOther = await bus.subscribe('other', (event) => others.push(event));
        const { received, off } = await nextEvent(bus, 'alert');
        const sent = { id: 1, nested: { state: 'open' } };
        assert.equal(await bus.publish('alert', sent), true);
        const event = await received;
        assert.deepEqual(event, sent);
        assert.notEqual(event, sent, 'subscribers get their own copy');
        assert.deepEqual(others, []);
        await off();
        await offOther();
      } finally {
        await bus.close();
      }
    });

    it('knows who listens, and stops delivering after unsubscribe', async () => {
      const bus = await makeBus();
      try {
        const seen: unknown[] = [];
        const off = await bus.subscribe('t', (event) => seen.push(event));
        assert.equal(bus.listens('t'), true);
        assert.equal(bus.listens('other'), false);
        await off();
        assert.equal(bus.listens('t'), false, 'nobody listens after unsubscribe');
        await bus.publish('t', { n: 1 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(seen, []);
      } finally {
        await bus.close();
      }
    });
  });
}

const clients: Redis[] = [];
after(async () => {
  for (const client of clients) client.disconnect();
});

await contractOf('memory', async () => createMemoryBus());
await contractOf('redis', async () => {
  const { log } = captureLogger();
  const publisher = createRedisClient(SHARED_REDIS_URL, log);
  const subscriber = createRedisClient(SHARED_REDIS_URL, log, { subscriber: true });
  clients.push(publisher, subscriber);
  await waitUntilReady(publisher, 2000);
  return createRedisBus({ publisher, subscriber, prefix: testPrefix(), log });
});

describe('redis bus isolation and outage', () => {
  it('keeps two prefixes apart on the same Redis', async () => {
    const { log } = captureLogger();
    const [p1, s1, p2, s2] = [
      createRedisClient(SHARED_REDIS_URL, log),
      createRedisClient(SHARED_REDIS_URL, log, { subscriber: true }),
      createRedisClient(SHARED_REDIS_URL, log),
      createRedisClient(SHARED_REDIS_URL, log, { subscriber: true }),
    ];
    clients.push(p1, s1, p2, s2);
    await waitUntilReady(p1, 2000);
    const a = createRedisBus({ publisher: p1, subscriber: s1, prefix: testPrefix(), log });
    const b = createRedisBus({ publisher: p2, subscriber: s2, prefix: testPrefix(), log });
    const seenByB: unknown[] = [];
    await b.subscribe('alert', (event) => seenByB.push(event));
    const { received } = await nextEvent(a, 'alert');
    await a.publish('alert', { from: 'a' });
    assert.deepEqual(await received, { from: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(seenByB, []);
  });

  it('publish fails fast and returns false when Redis is down, logging once', async () => {
    const logs = captureLogger();
    const url = `redis://127.0.0.1:${await freePort()}`;
    const publisher = createRedisClient(url, logs.log);
    const subscriber = createRedisClient(url, logs.log, { subscriber: true });
    clients.push(publisher, subscriber);
    const bus = createRedisBus({ publisher, subscriber, prefix: testPrefix(), log: logs.log });
    const started = Date.now();
    assert.equal(await bus.publish('alert', { n: 1 }), false);
    assert.equal(await bus.publish('alert', { n: 2 }), false);
    assert.ok(Date.now() - started < 1000, 'no waiting on a dead Redis');
    assert.equal(logs.messages().filter((m) => m === 'Bus publish failed').length, 1);
  });
});
