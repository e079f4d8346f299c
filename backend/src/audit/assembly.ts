/**
 * The audit log, built once by the composition root: every service that writes records its row
 * through this one service (in its own transaction); housekeeping purges through it too.
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import { createAuditRepo } from './repo.js';
import { auditRoutes } from './routes.js';
import { createAuditService } from './service.js';

export function assembleAudit(deps: { db: Knex; clock: Clock }) {
  const audit = createAuditService({ repo: createAuditRepo(deps.db), clock: deps.clock });
  return { audit, routes: mountRoutes(auditRoutes, audit) };
}
