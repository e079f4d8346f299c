/**
 * GET /api/health (spec endpoint table): database and key-value store, each
 * check bounded to 2 s (contracts.md), so a dead dependency answers 503 fast.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import type { HealthRepo } from './repo.js';
import { pingRedis } from '../lib/redis.js';
import { withTimeout } from '../lib/timeout.js';

export type ServiceState = 'ok' | 'error';

export interface HealthReport {
  status: 'ok' | 'degraded';
  timestamp: string;
  services: { database: ServiceState; redis: ServiceState };
}

export interface HealthDeps {
  repo: HealthRepo;
  /** null when the app runs on the in-memory bus (demo): nothing to be down. */
  redis: Redis | null;
  clock: Clock;
  checkTimeoutMs?: number;
}

export function createHealthService({ repo, redis, clock, checkTimeoutMs = 2000 }: HealthDeps) {
  async function databaseState(): Promise<ServiceState> {
    const ok = repo.ping().then(() => true);
    return (await withTimeout(ok, checkTimeoutMs, false)) ? 'ok' : 'error';
  }

  async function redisState(): Promise<ServiceState> {
    if (!redis) return 'ok';
    return (await pingRedis(redis, checkTimeoutMs)) ? 'ok' : 'error';
  }

  return {
    async check(): Promise<HealthReport> {
      const [database, redisResult] = await Promise.all([databaseState(), redisState()]);
      return {
        status: database === 'ok' && redisResult === 'ok' ? 'ok' : 'degraded',
        timestamp: clock.now().toISOString(),
        services: { database, redis: redisResult },
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
