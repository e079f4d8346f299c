/** GET /api/alerts/:id/notifications: the delivery log of one alert (docs/api.md "Notification channels and routing"). */
import Router from '@koa/router';
import type { AlertsService } from '../alerts/service.js';
import { currentPrincipal } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import type { DeliveriesRepo, LogEntry } from './deliveries-repo.js';
import type { RouteDoc } from '../http/openapi.js';
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

export function deliveryLogRoutes({ alerts, deliveries }: { alerts: AlertsService; deliveries: DeliveriesRepo }) {
  const router = new Router();
  router.get('/api/alerts/:id/notifications', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    // the alert's own visibility rule: a 404 for an alert the account may not see
    const alert = await alerts.get(principal, idOf(ctx.params['id'], 'alert', Number.MAX_SAFE_INTEGER));
    ctx.body = (await deliveries.log(alert.id)).map((entry) => entryView(entry, principal.role === 'ADMIN'));
  });
  return router;
}

/** What notifications/log-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const deliveryLogApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/alerts/:id/notifications',
    tag: 'Alerts',
    access: 'signed-in',
    summary: "An alert's delivery log: every channel and e-mail it was sent to, with every attempt",
    responses: { 200: { description: 'Deliveries, oldest first', schema: z.array(deliveryLogEntry) } },
  },
];
