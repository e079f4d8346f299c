import { routeOf } from '../http/route.js';
import type { HealthService } from './service.js';
import { healthReport } from '../../../contracts/operations.js';

const route = routeOf<HealthService>();

export const healthRoutes = [
  route({
    method: 'get',
    path: '/api/health',
    tag: 'Operations',
    access: 'public',
    summary: 'Whether the database and Redis answer',
    headers: { 'Cache-Control': 'no-store' },
    responses: {
      200: { description: 'Everything answers', schema: healthReport },
      503: { description: 'Degraded: names what is down', schema: healthReport },
    },
    handler: async (health, { ctx }) => {
      const report = await health.check();
      ctx.status = report.status === 'ok' ? 200 : 503;
      return report;
    },
  }),
];
