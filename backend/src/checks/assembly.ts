/**
 * The network checks feature, built once by the composition root: the routes, the server's runner
 * (started and stopped by the process entry) and what agents run (handed to ingest as seams),
 * sharing one repository, one address policy and one place where results are recorded.
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import { createAgentChecks, type AgentChecks } from './agent-checks.js';
import { checksPolicy } from './policy.js';
import { createChecksRepo, type StoredRun } from './repo.js';
import { checksRoutes } from './routes.js';
import { createCheckResults } from './results.js';
import { createCheckRunner, type CheckRunner } from './runner.js';
import { createChecksService, TRY_LIMIT } from './service.js';
import { liveReportOf } from './state.js';

export interface ChecksAssemblyDeps {
  db: Knex;
  bus: Bus;
  box: SecretBox;
  clock: Clock;
  audit: AuditTrail;
  log: Logger;
  limiter: LimiterFactory;
  /** ARGUS_ALLOW_PRIVATE_CHECKS: server-run checks may reach internal addresses. */
  allowPrivate: boolean;
}

export function assembleChecks(deps: ChecksAssemblyDeps): {
  routes: Router;
  runner: CheckRunner;
  agentChecks: AgentChecks;
} {
  const { db, bus, box, clock, audit, log } = deps;
  const repo = createChecksRepo(db);
  // the notification channels' outbound address policy, with the checks' own opt-in
  const policy = checksPolicy(deps.allowPrivate);
  // a check is a system of its own: the live hub tells the consoles that see its customer, as for
  // an agent's status change (a state change only: a run that changes nothing is no event)
  const announce = (ids: number[]) => ids.forEach((id) => void bus.publish('systems', { id }));
  // every stored run (and heartbeat) goes to the check's open pages as a report of its system
  // (`system:<id>`, the topic a system page's charts follow): with no page open nothing is built
  const tellOpenPages = (rows: StoredRun[]) => {
    for (const row of rows) {
      const topic = `system:${row.id}`;
      if (bus.listens(topic)) void bus.publish(topic, liveReportOf(row));
    }
  };
  const results = createCheckResults({ repo, clock, stateChanged: announce, stored: tellOpenPages });
  const runner = createCheckRunner({ repo, box, clock, log, policy, results });
  const agentChecks = createAgentChecks({ repo, results, box, clock, log });
  const service = createChecksService({
    repo,
    box,
    clock,
    audit,
    policy,
    tryLimit: deps.limiter(TRY_LIMIT.name, TRY_LIMIT.points, TRY_LIMIT.durationSeconds),
    changed: (id) => {
      announce([id]);
      agentChecks.changed();
      runner.reload().catch((error: unknown) => log.warn({ err: error }, 'Checks runner could not reload'));
    },
  });
  return { routes: mountRoutes(checksRoutes, service), runner, agentChecks };
}
