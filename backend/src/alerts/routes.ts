/** /api/alerts: list with filters and keyset paging, one alert, acknowledge. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { idOf, MAX_INT_ID } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { pageLimit, parseInput } from '../lib/validate.js';
import type { AlertsService } from './service.js';

const id = z.coerce
  .number({ error: 'must be an id' })
  .int('must be an id')
  .positive('must be an id')
  .max(MAX_INT_ID, 'must be an id');
/** Alert ids are bigint: any id JavaScript holds exactly. */
const alertId = z.coerce
  .number({ error: 'must be an id' })
  .int('must be an id')
  .positive('must be an id')
  .max(Number.MAX_SAFE_INTEGER, 'must be an id');

const listQuery = z.object({
  state: z.enum(['open', 'resolved'], { error: 'must be "open" or "resolved"' }).optional(),
  customer: id.optional(),
  system: id.optional(),
  severity: z.enum(['INFO', 'WARNING', 'CRITICAL'], { error: 'must be INFO, WARNING or CRITICAL' }).optional(),
  limit: pageLimit(),
  before: alertId.optional(),
});

const ackBody = z.object({
  note: z
    .string({ error: 'must be a string' })
    .trim()
    .max(1000, 'is too long')
    .nullable()
    .optional()
    .transform((note) => (note ? note : null)),
  until: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 time with offset' })
    .nullable()
    .optional()
    .transform((until) => (until ? new Date(until) : null)),
});

export function alertsRoutes(alerts: AlertsService): Router {
  const router = new Router();

  router.get('/api/alerts', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(listQuery, ctx.query);
    ctx.body = await alerts.list(principal, {
      state: q.state,
      customerId: q.customer,
      systemId: q.system,
      severity: q.severity,
      before: q.before,
      limit: q.limit,
    });
  });
  router.get('/api/alerts/:id', async (ctx) => {
    ctx.body = await alerts.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'alert', Number.MAX_SAFE_INTEGER));
  });
  // a VIEWER is refused before anything is looked up (403); an operator without the grant gets 404
  router.post('/api/alerts/:id/ack', requireRole('ADMIN', 'OPERATOR'), async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { note, until } = parseInput(ackBody, ctx.request.body);
    const id = idOf(ctx.params['id'], 'alert', Number.MAX_SAFE_INTEGER);
    ctx.body = await alerts.acknowledge(auditActor(ctx), principal, id, { note, until });
  });
  return router;
}
