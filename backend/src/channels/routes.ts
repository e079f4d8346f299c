/** /api/notification-channels and /api/notification-policies (docs/api.md "Notification channels and routing"). */
import { z } from 'zod';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
import type { PoliciesService } from './policies.js';
import { channelChangesSchema, channelSchema, listQuerySchema, policySchema } from './schema.js';
import { CHANNEL_TEST_LIMITS, type ChannelsService } from './service.js';
import { channelTestResult, notificationChannel, notificationPolicy } from '../../../contracts/channels.js';

export interface ChannelsRoutesDeps {
  channels: ChannelsService;
  policies: PoliciesService;
}

const route = routeOf<ChannelsRoutesDeps>();
const CHANNELS = 'Notification channels';
const POLICIES = 'Notification policies';
// a VIEWER is refused every route here (403, before anything is read): this is configuration
const access = 'admin-or-operator';
const channelId = { id: idParam('notification channel') };
const customerId = { customerId: idParam('customer') };

const channelRoutes = [
  route({
    method: 'get',
    path: '/api/notification-channels',
    tag: CHANNELS,
    access,
    summary: 'List the channels the account may see: global ones and those of its customers',
    query: listQuerySchema,
    responses: { 200: { description: 'The channels', schema: z.array(notificationChannel) } },
    handler: ({ channels }, { principal, query }) => channels.list(principal, query.customer),
  }),
  route({
    method: 'post',
    path: '/api/notification-channels',
    tag: CHANNELS,
    access,
    summary: 'Create a channel (a global one: ADMIN only)',
    description: 'A URL target and `secret` are write-only: answers show `targetHint` and `hasSecret`.',
    body: channelSchema,
    responses: { 201: { description: 'Created', schema: notificationChannel } },
    handler: ({ channels }, { actor, principal, body }) => channels.create(actor, principal, body),
  }),
  route({
    method: 'get',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access,
    summary: 'One channel',
    params: channelId,
    responses: { 200: { description: 'The channel', schema: notificationChannel } },
    handler: ({ channels }, { principal, params }) => channels.get(principal, params.id),
  }),
  route({
    method: 'patch',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access,
    summary: 'Change a channel (`secret: null` removes the secret)',
    params: channelId,
    body: channelChangesSchema,
    responses: { 200: { description: 'Changed', schema: notificationChannel } },
    handler: ({ channels }, { actor, principal, params, body }) => channels.update(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/notification-channels/:id',
    tag: CHANNELS,
    access,
    summary: 'Delete a channel; policies naming it stop using it',
    params: channelId,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ channels }, { actor, principal, params }) => {
      await channels.remove(actor, principal, params.id);
    },
  }),
  route({
    method: 'post',
    path: '/api/notification-channels/:id/test',
    tag: CHANNELS,
    access,
    summary: 'Send one test event now (no retries) and answer its outcome',
    description:
      'Answers only the outcome (`delivered`, `refused by policy` or `failed: <category>`) and the HTTP ' +
      'status of a URL target that answered: never a part of its answer, and one `failed: unreachable` ' +
      'for a name that does not resolve and a connection refused, reset or timed out. An `email` ' +
      "channel's test goes to the caller's own address only. Each test is audited (`channel.test`).",
    params: channelId,
    responses: {
      200: { description: 'The outcome (a failure is still 200)', schema: channelTestResult },
      429: refusalDoc(
        `Nothing sent; try again after Retry-After: more than ${CHANNEL_TEST_LIMITS.perChannel.points} tests ` +
          `of this channel in ${CHANNEL_TEST_LIMITS.perChannel.window}, or more than ` +
          `${CHANNEL_TEST_LIMITS.perAccount.points} of the account's in ${CHANNEL_TEST_LIMITS.perAccount.window}`,
      ),
    },
    handler: ({ channels }, { actor, principal, params }) => channels.test(actor, principal, params.id),
  }),
];

const policyRoutes = [
  route({
    method: 'get',
    path: '/api/notification-policies',
    tag: POLICIES,
    access,
    summary: 'The global policy and the own policies of the customers the account may see',
    responses: { 200: { description: 'The policies', schema: z.array(notificationPolicy) } },
    handler: ({ policies }, { principal }) => policies.list(principal),
  }),
  route({
    method: 'get',
    path: '/api/notification-policies/global',
    tag: POLICIES,
    access,
    summary: 'The global policy',
    responses: { 200: { description: 'The policy', schema: notificationPolicy } },
    handler: ({ policies }) => policies.getGlobal(),
  }),
  route({
    method: 'put',
    path: '/api/notification-policies/global',
    tag: POLICIES,
    access,
    summary: 'Replace the global policy (ADMIN only)',
    body: policySchema,
    responses: { 200: { description: 'The saved policy', schema: notificationPolicy } },
    handler: ({ policies }, { actor, principal, body }) => policies.saveGlobal(actor, principal, body),
  }),
  route({
    method: 'get',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access,
    summary: "A customer's own policy, or (`custom: false`) the global one it follows",
    params: customerId,
    responses: { 200: { description: 'The policy', schema: notificationPolicy } },
    handler: ({ policies }, { principal, params }) => policies.getForCustomer(principal, params.customerId),
  }),
  route({
    method: 'put',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access,
    summary: "Replace a customer's own policy",
    params: customerId,
    body: policySchema,
    responses: { 200: { description: 'The saved policy', schema: notificationPolicy } },
    handler: ({ policies }, { actor, principal, params, body }) =>
      policies.saveForCustomer(actor, principal, params.customerId, body),
  }),
  route({
    method: 'delete',
    path: '/api/notification-policies/customer/:customerId',
    tag: POLICIES,
    access,
    summary: "Remove a customer's own policy: the global one applies again",
    params: customerId,
    responses: { 204: { description: 'Removed' } },
    handler: async ({ policies }, { actor, principal, params }) => {
      await policies.removeForCustomer(actor, principal, params.customerId);
    },
  }),
];

export const channelsRoutes = [...channelRoutes, ...policyRoutes];
