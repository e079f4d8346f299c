/** /api/settings/alerts (administrators only): `{retentionDays}` 0..3650, 0 keeps resolved alerts. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AlertRetentionService } from './alert-retention-service.js';

const DAYS = 'must be a whole number of days from 0 (keep) to 3650';
const retentionSchema = z
  .object({ retentionDays: z.number({ error: DAYS }).int(DAYS).min(0, DAYS).max(3650, DAYS) })
  .strict();

export function alertRetentionRoutes(retention: Pick<AlertRetentionService, 'get' | 'update'>): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');
  router.get('/api/settings/alerts', admin, async (ctx) => {
    ctx.body = await retention.get();
  });
  router.put('/api/settings/alerts', admin, async (ctx) => {
    ctx.body = await retention.update(auditActor(ctx), parseInput(retentionSchema, ctx.request.body));
  });
  return router;
}
