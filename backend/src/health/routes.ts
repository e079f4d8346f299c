import Router from '@koa/router';
import type { HealthService } from './service.js';
import type { RouteDoc } from '../http/openapi.js';
import { healthReport } from '../../../contracts/operations.js';

export function healthRoutes(health: HealthService): Router {
  const router = new Router();
  router.get('/api/health', async (ctx) => {
    const report = await health.check();
    ctx.status = report.status === 'ok' ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report;
  });
  return router;
}

/** What health/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const healthApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/health',
    tag: 'Operations',
    access: 'public',
    summary: 'Whether the database and Redis answer',
    responses: {
      200: { description: 'Everything answers', schema: healthReport },
      503: { description: 'Degraded: names what is down', schema: healthReport },
    },
  },
];
