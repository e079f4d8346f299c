/**
 * The status pages feature, built once by the composition root: the admins' routes and the public
 * page (GET /status/<slug>: mounted before authentication, so no cookie is read or written), sharing
 * one repository (the public page's cache is dropped when an admin changes a page).
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import type { ReportsService } from '../reports/service.js';
import type { ScopeRepo } from '../scopes/repo.js';
import { createPublicStatusPages, publicStatusPageRoutes } from './public-page.js';
import { createStatusPagesRepo } from './repo.js';
import { statusPagesRoutes } from './routes.js';
import { createStatusPagesService } from './service.js';

export interface StatusPagesAssemblyDeps {
  db: Knex;
  reports: Pick<ReportsService, 'daily'>;
  clock: Clock;
  audit: AuditTrail;
  log: Logger;
  publicUrl: string;
  scopes: ScopeRepo;
  limiter: LimiterFactory;
}

export function assembleStatusPages(deps: StatusPagesAssemblyDeps): { routes: Router; publicPage: Router } {
  const { db, reports, clock, audit, log, publicUrl } = deps;
  const repo = createStatusPagesRepo(db);
  // per client address on the public page: a whole office behind one address reloading every 30 s stays well inside
  const limiter = deps.limiter('status-page', 120, 60);
  const publicPages = createPublicStatusPages({ repo, reports, clock, limiter, log });
  const service = createStatusPagesService({
    repo,
    scopes: deps.scopes,
    clock,
    audit,
    publicUrl,
    forget: publicPages.forget,
  });
  return {
    routes: mountRoutes(statusPagesRoutes, service),
    publicPage: mountRoutes(publicStatusPageRoutes, publicPages),
  };
}
