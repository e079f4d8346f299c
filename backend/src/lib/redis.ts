/**
 * ioredis clients that fail fast: no request may wait on a dead Redis
 * (the limits fail open, docs/limits.md "Rate limits"). Commands on a disconnected
 * client reject at once; the client keeps reconnecting in the background.
 */
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

export interface RedisClientOptions {
  /** The subscriber queues its SUBSCRIBE until connected; command clients never queue. */
  subscriber?: boolean;
  commandTimeoutMs?: number;
}

export function createRedisClient(url: string, log: Logger, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: options.subscriber === true,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    // keep trying, but never faster than every 2 s
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
  let healthy = true;
  client.on('error', (error: Error) => {
    // log the first error of an outage, not every reconnect attempt
    if (healthy) log.warn({ err: { message: error.message } }, 'Redis connection error');
    healthy = false;
  });
  client.on('ready', () => {
    if (!healthy) log.info('Redis connection restored');
    healthy = true;
  });
  return client;
}

/** PING bounded by `timeoutMs`; never throws. */
export async function pingRedis(client: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = await Promise.race([
      client.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return reply === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the client is ready, at most `timeoutMs`; a Redis that is down must not hold up start-up. */
export async function waitUntilReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}
