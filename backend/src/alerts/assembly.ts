/**
 * Alerts (list, acknowledge) and the incidents list, built once by the composition root. An
 * acknowledgement's notifications come from above (the notifier under the suppression in force).
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { createIncidentsRepo } from './incidents-read-repo.js';
import { incidentsRoutes } from './incidents-routes.js';
import { createAlertsRepo } from './repo.js';
import { alertsRoutes } from './routes.js';
import { createAlertsService, type AckNotifications } from './service.js';

export interface AlertsAssemblyDeps {
  db: Knex;
  bus: Bus;
  clock: Clock;
  audit: AuditTrail;
  notifications: AckNotifications;
}

export function assembleAlerts(deps: AlertsAssemblyDeps) {
  const { db, bus, clock, notifications, audit } = deps;
  const alerts = createAlertsService({ repo: createAlertsRepo(db), bus, clock, notifications, audit });
  return {
    alerts,
    routes: mountRoutes(alertsRoutes, alerts),
    incidentsRoutes: mountRoutes(incidentsRoutes, createIncidentsRepo(db)),
  };
}
