/**
 * GET /api/health (docs/api.md "Public"): database and key-value store, each
 * check bounded to 2 s (docs/limits.md "Time limits"), so a dead dependency answers 503 fast.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import type { EvaluationOutcome, HealthRepo } from './repo.js';
import { pingRedis } from '../lib/redis.js';
import { withTimeout } from '../lib/timeout.js';

export type ServiceState = 'ok' | 'error';

export interface HealthReport {
  status: 'ok' | 'degraded';
  timestamp: string;
  services: { database: ServiceState; redis: ServiceState };
  /** Components this instance runs without (the demo's in-memory bus: no Redis); their state above is nominal. */
  notUsed?: 'redis'[];
  /** Present when TimescaleDB policy jobs fail or run late: the app works, storage upkeep does not. */
  storage?: { troubledJobs: string[] };
  /** Present when the latest evaluation run failed (for all customers or some): no alerts for them meanwhile. */
  evaluation?: { lastRunAt: string; failedCustomers: number | 'all'; lastCompleteAt: string | null };
}

export interface HealthDeps {
  repo: HealthRepo;
  /** null when the app runs on the in-memory bus (demo): nothing to be down. */
  redis: Redis | null;
  clock: Clock;
  checkTimeoutMs?: number;
  /** Names of failing or late storage jobs, as housekeeping last saw them (no error text: health is public). */
  troubledStorageJobs?: () => string[];
}

export function createHealthService({ repo, redis, clock, checkTimeoutMs = 2000, troubledStorageJobs }: HealthDeps) {
  async function databaseState(): Promise<ServiceState> {
    const ok = repo.ping().then(() => true);
    return (await withTimeout(ok, checkTimeoutMs, false)) ? 'ok' : 'error';
  }

  async function redisState(): Promise<ServiceState> {
    if (!redis) return 'ok';
    return (await pingRedis(redis, checkTimeoutMs)) ? 'ok' : 'error';
  }

  /** The latest run's outcome when it failed; null when it succeeded, none ran, or it cannot be read in time. */
  async function failingEvaluation(): Promise<EvaluationOutcome | null> {
    const outcome = await withTimeout(
      repo.evaluationOutcome().catch(() => null),
      checkTimeoutMs,
      null,
    );
    return outcome && outcome.failedCustomers !== 0 ? outcome : null;
  }

  return {
    async check(): Promise<HealthReport> {
      const [database, redisResult] = await Promise.all([databaseState(), redisState()]);
      const troubledJobs = troubledStorageJobs?.() ?? [];
      const evaluation = database === 'ok' ? await failingEvaluation() : null;
      return {
        status: database === 'ok' && redisResult === 'ok' ? 'ok' : 'degraded',
        timestamp: clock.now().toISOString(),
        services: { database, redis: redisResult },
        ...(redis ? {} : { notUsed: ['redis' as const] }),
        ...(troubledJobs.length ? { storage: { troubledJobs } } : {}),
        ...(evaluation ? { evaluation } : {}),
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
