/** GET /api/storage (ADMIN): the storage panel's data (storage-report.ts). */
import Router from '@koa/router';
import { requireRole } from '../http/route-guards.js';
import type { StorageReporter } from './storage-report.js';
import type { RouteDoc } from '../http/openapi.js';
import { storageReport } from '../../../contracts/settings.js';

export function storageRoutes(storage: StorageReporter): Router {
  const router = new Router();
  router.get('/api/storage', requireRole('ADMIN'), async (ctx) => {
    ctx.body = await storage.report();
  });
  return router;
}

/** What housekeeping/storage-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const storageApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/storage',
    tag: 'Settings',
    access: 'admin',
    summary: "The database's size, the samples' compression and the TimescaleDB policy jobs",
    responses: { 200: { description: 'The storage report', schema: storageReport } },
  },
];
