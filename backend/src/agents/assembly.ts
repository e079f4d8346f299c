/**
 * The agent endpoints (installer, config, downloads, version) and the update rollout, built once by
 * the composition root; ingest offers updates through `updates`.
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import { createAgentDist } from './dist.js';
import { createAgentsRepo } from './repo.js';
import { rolloutRoutes } from './rollout-routes.js';
import { createAgentUpdates } from './rollout.js';
import { agentRoutes } from './routes.js';
import { createAgentEndpoints } from './service.js';

export interface AgentsAssemblyDeps {
  db: Knex;
  clock: Clock;
  log: Logger;
  audit: AuditTrail;
  limiter: LimiterFactory;
  /** AGENT_DIST_DIR: the agent builds served for download. */
  distDir: string;
  publicUrl: string;
  webhookSecret: string | null;
}

export function assembleAgents(deps: AgentsAssemblyDeps) {
  const { db, clock, log } = deps;
  const repo = createAgentsRepo(db);
  const dist = createAgentDist({ dir: deps.distDir, publicUrl: deps.publicUrl, clock, log });
  const updates = createAgentUpdates({ db, repo, dist, clock, log, audit: deps.audit });
  const endpoints = createAgentEndpoints({
    repo,
    dist,
    webhookSecret: deps.webhookSecret,
    // failed enrollment-key checks per client address (docs/limits.md)
    keyFailures: deps.limiter('enrollment-address', 20, 10 * 60),
  });
  return {
    updates,
    routes: mountRoutes(agentRoutes, { endpoints, updates, log }),
    rolloutRoutes: mountRoutes(rolloutRoutes, { updates }),
  };
}
