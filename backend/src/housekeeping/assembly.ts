/**
 * The hourly housekeeping and the storage page, built once by the composition root on one
 * housekeeping repository. The purges run through the features' own services (the one audit
 * service, the one alert retention service); main.ts starts and stops the timer.
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createHousekeepingRepo } from './repo.js';
import {
  createHousekeeping,
  type AlertRetentionPurge,
  type MonthlyReportSender,
  type SampleRetention,
} from './service.js';
import { createStorageReport } from './storage-report.js';
import { storageRoutes } from './storage-routes.js';

export interface HousekeepingAssemblyDeps {
  db: Knex;
  clock: Clock;
  log: Logger;
  audit: { purge(retentionMs: number): Promise<number> };
  alertRetention: AlertRetentionPurge;
  monthlyReports: MonthlyReportSender;
  /** AUDIT_RETENTION */
  auditRetentionMs: number;
  /** Agent events are kept as long as raw samples (METRICS_RAW_RETENTION). */
  agentEventRetentionMs: number;
  /** When the per-sample tables from before one row per report are past retention. */
  sampleRetention: SampleRetention;
}

export function assembleHousekeeping(deps: HousekeepingAssemblyDeps) {
  const { clock, log, audit } = deps;
  const repo = createHousekeepingRepo(deps.db);
  const housekeeping = createHousekeeping({
    repo,
    clock,
    log,
    alertRetention: deps.alertRetention,
    auditRetention: { purge: () => audit.purge(deps.auditRetentionMs) },
    monthlyReports: deps.monthlyReports,
    agentEventRetentionMs: deps.agentEventRetentionMs,
    sampleRetention: deps.sampleRetention,
  });
  return { housekeeping, storageRoutes: mountRoutes(storageRoutes, createStorageReport({ repo, clock })) };
}
