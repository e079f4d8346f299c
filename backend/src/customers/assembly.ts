/**
 * Customers and clusters, and the enrolment figures with an ADMIN's one-hour raise per cluster,
 * built once by the composition root on one customers repository.
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { createEnrollmentRepo } from './enrollment-repo.js';
import { enrollmentRoutes } from './enrollment-routes.js';
import { createEnrollmentService } from './enrollment-service.js';
import { createCustomersRepo } from './repo.js';
import { customersRoutes } from './routes.js';
import { createCustomersService } from './service.js';

export interface CustomersAssemblyDeps {
  db: Knex;
  bus: Bus;
  clock: Clock;
  audit: AuditTrail;
  publicUrl: string;
  /** AGENT_ENROLL_PER_CLUSTER_PER_HOUR: the limit before any raise. */
  enrollPerClusterPerHour: number;
}

export function assembleCustomers(deps: CustomersAssemblyDeps) {
  const { db, bus, audit } = deps;
  const repo = createCustomersRepo(db);
  const customers = createCustomersService({ repo, bus, publicUrl: deps.publicUrl, audit });
  const enrollment = createEnrollmentService({
    repo: createEnrollmentRepo(db),
    clusters: repo,
    bus,
    clock: deps.clock,
    audit,
    defaultLimit: deps.enrollPerClusterPerHour,
  });
  return {
    routes: mountRoutes(customersRoutes, customers),
    enrollmentRoutes: mountRoutes(enrollmentRoutes, enrollment),
  };
}
