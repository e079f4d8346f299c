import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.js';
import type { Bus, BusHandler } from './bus.js';

export interface RedisBusOptions {
  publisher: Redis;
  subscriber: Redis;
  /** Channel prefix: keeps instances (and test files) that share a Redis apart. */
  prefix: string;
  log: Logger;
}

/** Redis pub/sub bus. The subscriber connection is dedicated (a subscribed client can do nothing else). */
export function createRedisBus({ publisher, subscriber, prefix, log }: RedisBusOptions): Bus {
  const handlers = new Map<string, Set<BusHandler>>();
  let publishFailing = false;

  // After an outage ioredis re-subscribes what it had confirmed; a SUBSCRIBE that failed while Redis
  // was down (say, at start-up) was never confirmed, so every channel is subscribed again on
  // reconnect (subscribing twice is harmless). Delivery resumes without an app restart.
  const subscribeQuietly = (channel: string) =>
    subscriber.subscribe(channel).catch((error: unknown) => {
      log.warn({ err: { message: (error as Error).message }, channel }, 'Bus subscribe failed; retried on reconnect');
    });
  const onReady = () => {
    for (const channel of handlers.keys()) void subscribeQuietly(channel);
  };
  subscriber.on('ready', onReady);

  subscriber.on('message', (channel: string, payload: string) => {
    const set = handlers.get(channel);
    if (!set) return;
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      log.warn({ channel }, 'Ignored a bus message that is not JSON');
      return;
    }
    for (const handler of set) {
      try {
        handler(event);
      } catch (error) {
        log.error({ err: error, channel }, 'Bus handler failed');
      }
    }
  });

  return {
    async publish(topic, event) {
      try {
        await publisher.publish(prefix + topic, JSON.stringify(event));
        publishFailing = false;
        return true;
      } catch (error) {
        if (!publishFailing) log.warn({ err: { message: (error as Error).message }, topic }, 'Bus publish failed');
        publishFailing = true;
        return false;
      }
    },
    async subscribe(topic, handler) {
      const channel = prefix + topic;
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await subscribeQuietly(channel);
      }
      set.add(handler);
      return async () => {
        const current = handlers.get(channel);
        if (!current) return;
        current.delete(handler);
        if (current.size === 0) {
          handlers.delete(channel);
          await subscriber.unsubscribe(channel).catch(() => undefined);
        }
      };
    },
    listens: (topic) => handlers.has(prefix + topic),
    async close() {
      handlers.clear();
      subscriber.removeAllListeners('message');
      subscriber.off('ready', onReady);
    },
  };
}
