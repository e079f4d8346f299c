/** GET /api/storage (ADMIN): the storage panel's data (storage-report.ts). */
import Router from '@koa/router';
import { requireRole } from '../http/route-guards.js';
import type { StorageReporter } from './storage-report.js';
import type { RouteDoc } from '../http/openapi.js';

export function storageRoutes(storage: StorageReporter): Router {
  const router = new Router();
  router.get('/api/storage', requireRole('ADMIN'), async (ctx) => {
    ctx.body = await storage.report();
  });
  return router;
}

/** What housekeeping/storage-routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const storageApi: RouteDoc[] = [];
