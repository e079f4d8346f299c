/** Maintenance windows, built once by the composition root. */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { ScopeRepo } from '../scopes/repo.js';
import { createMaintenanceRepo } from './repo.js';
import { maintenanceRoutes } from './routes.js';
import { createMaintenanceService } from './service.js';

export function assembleMaintenance(deps: { db: Knex; scopes: ScopeRepo; bus: Bus; clock: Clock; audit: AuditTrail }) {
  const { scopes, bus, clock, audit } = deps;
  const maintenance = createMaintenanceService({ repo: createMaintenanceRepo(deps.db), scopes, bus, clock, audit });
  return { routes: mountRoutes(maintenanceRoutes, maintenance) };
}
