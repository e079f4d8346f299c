/**
 * Notifications, built once by the composition root: routed to channels by policy, queued in the
 * evaluation run or in an acknowledgement. The delivery log of an alert reads the alerts service,
 * which itself needs the notifier: `deliveryLogRoutes` is built once the alerts are.
 */
import type { Knex } from 'knex';
import type { AlertsService } from '../alerts/service.js';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Mailer } from '../mail/mailer.js';
import { createDeliveriesRepo } from './deliveries-repo.js';
import { createDeliveryLog } from './delivery-log.js';
import { deliveryLogRoutes } from './log-routes.js';
import { createNotificationsRepo } from './repo.js';
import { createRoutingRepo } from './routing-repo.js';
import { createAlertNotifier } from './service.js';

export interface NotificationsAssemblyDeps {
  db: Knex;
  box: SecretBox;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  authUrl: string;
  allowPrivateWebhooks: boolean;
}

export function assembleNotifications(deps: NotificationsAssemblyDeps) {
  const { db, box, mailer, clock, log, authUrl, allowPrivateWebhooks } = deps;
  const deliveries = createDeliveriesRepo(db);
  const repo = createNotificationsRepo(db);
  const routing = createRoutingRepo(db);
  const notifier = createAlertNotifier({
    repo,
    deliveries,
    routing,
    box,
    mailer,
    clock,
    log,
    authUrl,
    allowPrivateWebhooks,
  });
  return {
    notifier,
    deliveryLogRoutes: (alerts: AlertsService) =>
      mountRoutes(deliveryLogRoutes, createDeliveryLog({ alerts, deliveries })),
  };
}
