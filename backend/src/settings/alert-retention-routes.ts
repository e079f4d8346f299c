/** /api/settings/alerts (administrators only): `{retentionDays}` 0..3650, 0 keeps resolved alerts. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AlertRetentionService } from './alert-retention-service.js';
import type { RouteDoc } from '../http/openapi.js';
import { alertRetention, alertRetentionBody } from '../../../contracts/settings.js';

export function alertRetentionRoutes(retention: Pick<AlertRetentionService, 'get' | 'update'>): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');
  router.get('/api/settings/alerts', admin, async (ctx) => {
    ctx.body = await retention.get();
  });
  router.put('/api/settings/alerts', admin, async (ctx) => {
    ctx.body = await retention.update(auditActor(ctx), parseInput(alertRetentionBody, ctx.request.body));
  });
  return router;
}

/** What settings/alert-retention-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const alertRetentionApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/settings/alerts',
    tag: 'Settings',
    access: 'admin',
    summary: 'How long resolved alerts are kept',
    responses: { 200: { description: 'The retention', schema: alertRetention } },
  },
  {
    method: 'put',
    path: '/api/settings/alerts',
    tag: 'Settings',
    access: 'admin',
    summary: 'Set how long resolved alerts are kept (0 keeps them; open alerts are never deleted)',
    body: alertRetentionBody,
    responses: { 200: { description: 'The saved retention', schema: alertRetention } },
  },
];
