/** /api/notification-channels and /api/notification-policies (docs/api.md "Notification channels and routing"). */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import type { PoliciesService } from './policies.js';
import { channelChangesSchema, channelSchema, listQuerySchema, policySchema } from './schema.js';
import { CHANNEL_TEST_LIMITS, type ChannelsService } from './service.js';
import { z } from 'zod';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { channelTestResult, notificationChannel, notificationPolicy } from '../../../contracts/channels.js';

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
    const id = idOf(ctx.params['id'], 'notification channel');
    ctx.body = await channels.test(auditActor(ctx), currentPrincipal(ctx.state), id);
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

const CHANNELS = 'Notification channels';
const POLICIES = 'Notification policies';
const STAFF = 'admin-or-operator' as const;
/** What channels/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const channelsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/notification-channels',
    tag: CHANNELS,
    access: STAFF,
    summary: 'List the channels the account may see: global ones and those of its customers',
    query: listQuerySchema,
    responses: { 200: { description: 'The channels', schema: z.array(notificationChannel) } },
  },
  {
    method: 'post',
    path: '/api/notification-channels',
    tag: CHANNELS,
    access: STAFF,
    summary: 'Create a channel (a global one: ADMIN only)',
    description: 'A URL target and `secret` are write-only: answers show `targetHint` and `hasSecret`.',
    body: channelSchema,
    responses: { 201: { description: 'Created', schema: notificationChannel } },
  },
  {
    method: 'get',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access: STAFF,
    summary: 'One channel',
    responses: { 200: { description: 'The channel', schema: notificationChannel } },
  },
  {
    method: 'patch',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access: STAFF,
    summary: 'Change a channel (`secret: null` removes the secret)',
    body: channelChangesSchema,
    responses: { 200: { description: 'Changed', schema: notificationChannel } },
  },
  {
    method: 'delete',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access: STAFF,
    summary: 'Delete a channel; policies naming it stop using it',
    responses: { 204: { description: 'Deleted' } },
  },
  {
    method: 'post',
    path: '/api/notification-channels/:id/test',
    tag: CHANNELS,
    access: STAFF,
    summary: 'Send one test event now (no retries) and answer its outcome',
    description:
      'Answers only the outcome (`delivered`, `refused by policy` or `failed: <category>`) and the HTTP ' +
      'status of a URL target that answered: never a part of its answer, and one `failed: unreachable` ' +
      'for a name that does not resolve and a connection refused, reset or timed out. An `email` ' +
      "channel's test goes to the caller's own address only. Each test is audited (`channel.test`).",
    responses: {
      200: { description: 'The outcome (a failure is still 200)', schema: channelTestResult },
      429: refusalDoc(
        `Nothing sent; try again after Retry-After: more than ${CHANNEL_TEST_LIMITS.perChannel.points} tests ` +
          `of this channel in ${CHANNEL_TEST_LIMITS.perChannel.window}, or more than ` +
          `${CHANNEL_TEST_LIMITS.perAccount.points} of the account's in ${CHANNEL_TEST_LIMITS.perAccount.window}`,
      ),
    },
  },
  {
    method: 'get',
    path: '/api/notification-policies',
    tag: POLICIES,
    access: STAFF,
    summary: 'The global policy and the own policies of the customers the account may see',
    responses: { 200: { description: 'The policies', schema: z.array(notificationPolicy) } },
  },
  {
    method: 'get',
    path: '/api/notification-policies/global',
    tag: POLICIES,
    access: STAFF,
    summary: 'The global policy',
    responses: { 200: { description: 'The policy', schema: notificationPolicy } },
  },
  {
    method: 'put',
    path: '/api/notification-policies/global',
    tag: POLICIES,
    access: STAFF,
    summary: 'Replace the global policy (ADMIN only)',
    body: policySchema,
    responses: { 200: { description: 'The saved policy', schema: notificationPolicy } },
  },
  {
    method: 'get',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access: STAFF,
    summary: "A customer's own policy, or (`custom: false`) the global one it follows",
    responses: { 200: { description: 'The policy', schema: notificationPolicy } },
  },
  {
    method: 'put',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access: STAFF,
    summary: "Replace a customer's own policy",
    body: policySchema,
    responses: { 200: { description: 'The saved policy', schema: notificationPolicy } },
  },
  {
    method: 'delete',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access: STAFF,
    summary: "Remove a customer's own policy: the global one applies again",
    responses: { 204: { description: 'Removed' } },
  },
];
