/**
 * Rate limits over rate-limiter-flexible, Redis-backed in production and tests,
 * in memory for the demo. A store failure fails OPEN (logged): a Redis outage
 * must never turn into 429s for everyone (pitfalls.md).
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../lib/logger.js';

export type RateLimitStore = { kind: 'redis'; client: Redis; prefix: string } | { kind: 'memory' };

export interface RateLimitRule {
  /** Names the limit in keys and logs, e.g. "setup". */
  name: string;
  points: number;
  durationSeconds: number;
  /** Once exceeded, refuse for this long (defaults to the rest of the window). */
  blockDurationSeconds?: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Attempts counted in the current window (including this one, for consume). */
  consumed: number;
  remaining: number;
  retryAfterSeconds: number;
  /** Milliseconds until the key's window ends (0 when not known: a store failing open). */
  resetsInMs: number;
}

export interface RateLimiter {
  /** Attempts allowed in a window (its rule's points): what a refusal's message can name. */
  readonly points: number;
  consume(key: string, points?: number): Promise<RateLimitResult>;
  /** Forget a key's count (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Gives back points consumed (an attempt counted up front that turned out not to be a failure). */
  refund(key: string, points?: number): Promise<void>;
  /** Whether the next attempt would be refused, without counting one. */
  peek(key: string): Promise<RateLimitResult>;
}

/** A named limit of `points` per `durationSeconds` (blocked for `blockDurationSeconds`), on the app's store. */
export type LimiterFactory = (
  name: string,
  points: number,
  durationSeconds: number,
  blockDurationSeconds?: number,
) => RateLimiter;

/** The one factory the composition root hands to every feature that limits something. */
export function limiterFactory(store: RateLimitStore, log: Logger): LimiterFactory {
  return (name, points, durationSeconds, blockDurationSeconds) =>
    createRateLimiter(store, { name, points, durationSeconds, blockDurationSeconds }, log);
}

export function createRateLimiter(store: RateLimitStore, rule: RateLimitRule, log: Logger): RateLimiter {
  const options = {
    points: rule.points,
    duration: rule.durationSeconds,
    blockDuration: rule.blockDurationSeconds ?? 0,
  };
  const limiter: RateLimiterAbstract =
    store.kind === 'redis'
      ? new RateLimiterRedis({
          ...options,
          storeClient: store.client,
          keyPrefix: `${store.prefix}rl:${rule.name}`,
          rejectIfRedisNotReady: true,
        })
      : new RateLimiterMemory({ ...options, keyPrefix: `rl:${rule.name}` });

  let failingOpen = false;
  return {
    points: rule.points,
    async consume(key, points = 1) {
      try {
        const res = await limiter.consume(key, points);
        failingOpen = false;
        return {
          allowed: true,
          consumed: res.consumedPoints,
          remaining: res.remainingPoints,
          retryAfterSeconds: 0,
          resetsInMs: res.msBeforeNext,
        };
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          return {
            allowed: false,
            consumed: error.consumedPoints,
            remaining: 0,
            retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)),
            resetsInMs: error.msBeforeNext,
          };
        }
        if (!failingOpen)
          log.warn(
            { limit: rule.name, err: { message: (error as Error).message } },
            'Rate limiter store failed: failing open',
          );
        failingOpen = true;
        return { allowed: true, consumed: 0, remaining: rule.points, retryAfterSeconds: 0, resetsInMs: 0 };
      }
    },
    async peek(key) {
      try {
        const res = await limiter.get(key);
        // blocked when the next attempt would be over the limit
        if (res && res.consumedPoints >= rule.points) {
          return {
            allowed: false,
            consumed: res.consumedPoints,
            remaining: 0,
            retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
            resetsInMs: res.msBeforeNext,
          };
        }
        const consumed = res?.consumedPoints ?? 0;
        return {
          allowed: true,
          consumed,
          remaining: rule.points - consumed,
          retryAfterSeconds: 0,
          resetsInMs: res?.msBeforeNext ?? 0,
        };
      } catch {
        return { allowed: true, consumed: 0, remaining: rule.points, retryAfterSeconds: 0, resetsInMs: 0 };
      }
    },
    async refund(key, points = 1) {
      try {
        await limiter.reward(key, points);
      } catch (error) {
        log.warn({ limit: rule.name, err: { message: (error as Error).message } }, 'Rate limiter refund failed');
      }
    },
    async reset(key) {
      try {
        await limiter.delete(key);
      } catch (error) {
        log.warn({ limit: rule.name, err: { message: (error as Error).message } }, 'Rate limiter reset failed');
      }
    },
  };
}
