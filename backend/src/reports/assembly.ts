/**
 * Availability reports and the monthly report e-mail, built once by the composition root on one
 * reports repository; housekeeping sends what is due, status pages read the daily figures.
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../mail/mailer.js';
import { createMonthlyReports } from './monthly.js';
import { createReportsRepo } from './repo.js';
import { reportsRoutes } from './routes.js';
import { createReportsService, type RetentionSource } from './service.js';

export interface ReportsAssemblyDeps {
  db: Knex;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  audit: AuditTrail;
  authUrl: string;
  /** The alert retention: how far back a report can reach. */
  retention: RetentionSource;
}

export function assembleReports(deps: ReportsAssemblyDeps) {
  const { clock, mailer, audit, log, authUrl } = deps;
  const repo = createReportsRepo(deps.db);
  const reports = createReportsService({ repo, clock, retention: deps.retention });
  const monthly = createMonthlyReports({ repo, reports, mailer, audit, clock, log, authUrl });
  return { reports, monthly, routes: mountRoutes(reportsRoutes, { reports, monthly }) };
}
