/** /api/notification-channels and /api/notification-policies (docs/api.md "Notification channels and routing"). */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import type { PoliciesService } from './policies.js';
import { channelChangesSchema, channelSchema, listQuerySchema, policySchema } from './schema.js';
import type { ChannelsService } from './service.js';

export function channelsRoutes(channels: ChannelsService, policies: PoliciesService): Router {
  const router = new Router();
  // a VIEWER is refused every route here (403, before anything is read): this is configuration
  const staff = requireRole('ADMIN', 'OPERATOR');

  router.get('/api/notification-channels', staff, async (ctx) => {
    const { customer } = parseInput(listQuerySchema, ctx.query);
    ctx.body = await channels.list(currentPrincipal(ctx.state), customer);
  });
  router.post('/api/notification-channels', staff, async (ctx) => {
    const input = parseInput(channelSchema, ctx.request.body);
    ctx.body = await channels.create(auditActor(ctx), currentPrincipal(ctx.state), input);
    ctx.status = 201;
  });
  router.get('/api/notification-channels/:id', staff, async (ctx) => {
    ctx.body = await channels.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'notification channel'));
  });
  router.patch('/api/notification-channels/:id', staff, async (ctx) => {
    const id = idOf(ctx.params['id'], 'notification channel');
    ctx.body = await channels.update(
      auditActor(ctx),
      currentPrincipal(ctx.state),
      id,
      parseInput(channelChangesSchema, ctx.request.body),
    );
  });
  router.delete('/api/notification-channels/:id', staff, async (ctx) => {
    await channels.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'notification channel'));
    ctx.status = 204;
  });
  router.post('/api/notification-channels/:id/test', staff, async (ctx) => {
    ctx.body = await channels.test(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'notification channel'));
  });

  router.get('/api/notification-policies', staff, async (ctx) => {
    ctx.body = await policies.list(currentPrincipal(ctx.state));
  });
  router.get('/api/notification-policies/global', staff, async (ctx) => {
    ctx.body = await policies.getGlobal();
  });
  router.put('/api/notification-policies/global', staff, async (ctx) => {
    const input = parseInput(policySchema, ctx.request.body);
    ctx.body = await policies.saveGlobal(auditActor(ctx), currentPrincipal(ctx.state), input);
  });
  router.get('/api/notification-policies/customer/:customerId', staff, async (ctx) => {
    const customerId = idOf(ctx.params['customerId'], 'customer');
    ctx.body = await policies.getForCustomer(currentPrincipal(ctx.state), customerId);
  });
  router.put('/api/notification-policies/customer/:customerId', staff, async (ctx) => {
    const customerId = idOf(ctx.params['customerId'], 'customer');
    const input = parseInput(policySchema, ctx.request.body);
    ctx.body = await policies.saveForCustomer(auditActor(ctx), currentPrincipal(ctx.state), customerId, input);
  });
  router.delete('/api/notification-policies/customer/:customerId', staff, async (ctx) => {
    await policies.removeForCustomer(
      auditActor(ctx),
      currentPrincipal(ctx.state),
      idOf(ctx.params['customerId'], 'customer'),
    );
    ctx.status = 204;
  });
  return router;
}
