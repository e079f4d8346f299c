/** /api/systems: list, detail, edit, delete, re-enroll (ADMIN) and chart data. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { idOf } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import type { Clock } from '../lib/clock.js';
import { parseInput } from '../lib/validate.js';
import type { SystemsService } from './service.js';

const updateSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    customerId: z.number().int().positive(),
    clusterId: z.number().int().positive().nullable(),
    offlineAlerts: z.boolean(),
  })
  .partial()
  .strict();

const metricsQuery = z.object({
  name: z.string().regex(/^[a-z0-9_.]{1,64}$/, 'must be a metric name'),
  instance: z.string().max(128).default(''),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export function systemsRoutes(systems: SystemsService, clock: Clock): Router {
  const router = new Router();

  router.get('/api/systems', async (ctx) => {
    ctx.body = await systems.list(currentPrincipal(ctx.state));
  });
  router.get('/api/systems/:id', async (ctx) => {
    ctx.body = await systems.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
  });
  router.patch('/api/systems/:id', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(updateSchema, ctx.request.body);
    ctx.body = await systems.update(auditActor(ctx), principal, idOf(ctx.params['id'], 'system'), input);
  });
  router.delete('/api/systems/:id', async (ctx) => {
    await systems.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
    ctx.status = 204;
  });
  router.post('/api/systems/:id/re-enroll', requireRole('ADMIN'), async (ctx) => {
    await systems.reEnroll(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
    ctx.status = 204;
  });
  router.get('/api/systems/:id/series', async (ctx) => {
    ctx.body = await systems.series(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
  });
  router.get('/api/systems/:id/metrics', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(metricsQuery, ctx.query);
    const to = q.to ? new Date(q.to) : clock.now();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 3_600_000);
    ctx.body = await systems.metrics(principal, {
      systemId: idOf(ctx.params['id'], 'system'),
      name: q.name,
      instance: q.instance,
      from,
      to,
    });
  });
  return router;
}
