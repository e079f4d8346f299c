/** GET /api/health, built once by the composition root: mounted before authentication, so a monitor with a stale token still sees it. */
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import { createHealthRepo } from './repo.js';
import { healthRoutes } from './routes.js';
import { createHealthService } from './service.js';

export interface HealthAssemblyDeps {
  db: Knex;
  redis: Redis | null;
  clock: Clock;
  /** Names of failing or late storage jobs, as housekeeping last saw them. */
  troubledStorageJobs: () => string[];
}

export function assembleHealth(deps: HealthAssemblyDeps) {
  const { redis, clock, troubledStorageJobs } = deps;
  return {
    routes: mountRoutes(
      healthRoutes,
      createHealthService({ repo: createHealthRepo(deps.db), redis, clock, troubledStorageJobs }),
    ),
  };
}
