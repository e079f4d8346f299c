/** /api/alerts: list with filters and keyset paging, one alert, acknowledge. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { idOf } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AlertsService } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { acknowledgeBody, alertDetail, alertsQuery } from '../../../contracts/alerts.js';

export function alertsRoutes(alerts: AlertsService): Router {
  const router = new Router();

  router.get('/api/alerts', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(alertsQuery, ctx.query);
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
    const { note, until } = parseInput(acknowledgeBody, ctx.request.body);
    const id = idOf(ctx.params['id'], 'alert', Number.MAX_SAFE_INTEGER);
    ctx.body = await alerts.acknowledge(auditActor(ctx), principal, id, { note, until });
  });
  return router;
}

/** What alerts/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const ALERTS = 'Alerts';
export const alertsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/alerts',
    tag: ALERTS,
    access: 'signed-in',
    summary: 'List alerts, newest first',
    description: 'Filters combine; page backwards with `before` = the last id of the previous page.',
    query: alertsQuery,
    responses: { 200: { description: 'A page of alerts', schema: z.array(alertDetail) } },
  },
  {
    method: 'get',
    path: '/api/alerts/:id',
    tag: ALERTS,
    access: 'signed-in',
    summary: 'One alert',
    responses: { 200: { description: 'The alert', schema: alertDetail } },
  },
  {
    method: 'post',
    path: '/api/alerts/:id/ack',
    tag: ALERTS,
    access: 'admin-or-operator',
    summary: 'Acknowledge an open alert',
    description: 'The alert stays open, marked with who, when and a note; repeats and escalations stop until `until`.',
    body: acknowledgeBody,
    responses: {
      200: { description: 'The acknowledged alert', schema: alertDetail },
      409: refusalDoc('The alert is resolved or already acknowledged'),
    },
  },
];
