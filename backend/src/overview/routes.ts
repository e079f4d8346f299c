/**
 * /api/overview: the console's home page, within the customers the account may see. The live
 * snapshot `overview` pushes the same answer (live/assembly.ts). A read: no audit row.
 */
import Router from '@koa/router';
import { fleetTrend, overview } from '../../../contracts/overview.js';
import { currentPrincipal } from '../http/route-guards.js';
import type { RouteDoc } from '../http/openapi.js';
import { visibleTo } from '../lib/access.js';
import type { OverviewService } from './service.js';

export function overviewRoutes(service: Pick<OverviewService, 'compute'>, trend: OverviewService['trend']): Router {
  const router = new Router();
  router.get('/api/overview', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await service.compute(visibleTo(principal));
  });
  router.get('/api/overview/trend', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await trend(visibleTo(currentPrincipal(ctx.state)));
  });
  return router;
}

/** What overview/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const overviewApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/overview',
    tag: 'Overview',
    access: 'signed-in',
    summary:
      'The fleet at a glance: per customer the systems by status, open alerts by severity, systems in maintenance and the worst offenders of the last 24 hours; fleet totals; open incidents',
    responses: { 200: { description: 'The overview of the customers the caller may see', schema: overview } },
  },
  {
    method: 'get',
    path: '/api/overview/trend',
    tag: 'Overview',
    access: 'signed-in',
    summary:
      'The fleet over the last 24 hours, a point an hour (the last one now): systems with an offline alert open and alerts open',
    responses: { 200: { description: 'The trend of the customers the caller may see', schema: fleetTrend } },
  },
];
