/** GET /api/alerts/:id/notifications: the delivery log of one alert (docs/api.md "Notification channels and routing"). */
import { idParam, routeOf } from '../http/route.js';
import type { DeliveryLog } from './delivery-log.js';
import { z } from 'zod';
import { deliveryLogEntry } from '../../../contracts/alerts.js';

const route = routeOf<DeliveryLog>();

export const deliveryLogRoutes = [
  route({
    method: 'get',
    path: '/api/alerts/:id/notifications',
    tag: 'Alerts',
    access: 'signed-in',
    summary: "An alert's delivery log: every channel and e-mail it was sent to, with every attempt",
    params: { id: idParam('alert', Number.MAX_SAFE_INTEGER) },
    responses: { 200: { description: 'Deliveries, oldest first', schema: z.array(deliveryLogEntry) } },
    handler: (log, { principal, params }) => log.of(principal, params.id),
  }),
];
