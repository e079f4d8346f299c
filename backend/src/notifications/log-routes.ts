/** GET /api/alerts/:id/notifications: the delivery log of one alert (docs/api.md "Notification channels and routing"). */
import type { AlertsService } from '../alerts/service.js';
import { idParam, routeOf } from '../http/route.js';
import type { DeliveriesRepo, LogEntry } from './deliveries-repo.js';
import { z } from 'zod';
import { deliveryLogEntry } from '../../../contracts/alerts.js';

function entryView(entry: LogEntry, showRecipient: boolean) {
  return {
    id: entry.id,
    channel: { id: entry.channelId, name: entry.channelName, type: entry.channelType },
    event: entry.event,
    status: entry.status,
    attempts: entry.attempts,
    lastStatus: entry.lastStatus,
    lastError: entry.lastError,
    // another account's address is not everyone's business
    recipient: showRecipient ? entry.recipient : null,
    createdAt: entry.createdAt.toISOString(),
    lastAttemptAt: entry.lastAttemptAt?.toISOString() ?? null,
    sentAt: entry.sentAt?.toISOString() ?? null,
    // every try: when, the target's status (channels) and why it failed
    attemptLog: entry.attemptLog,
  };
}

export interface DeliveryLogDeps {
  alerts: AlertsService;
  deliveries: DeliveriesRepo;
}

const route = routeOf<DeliveryLogDeps>();

export const deliveryLogRoutes = [
  route({
    method: 'get',
    path: '/api/alerts/:id/notifications',
    tag: 'Alerts',
    access: 'signed-in',
    summary: "An alert's delivery log: every channel and e-mail it was sent to, with every attempt",
    params: { id: idParam('alert', Number.MAX_SAFE_INTEGER) },
    responses: { 200: { description: 'Deliveries, oldest first', schema: z.array(deliveryLogEntry) } },
    handler: async ({ alerts, deliveries }, { principal, params }) => {
      // the alert's own visibility rule: a 404 for an alert the account may not see
      const alert = await alerts.get(principal, params.id);
      return (await deliveries.log(alert.id)).map((entry) => entryView(entry, principal.role === 'ADMIN'));
    },
  }),
];
