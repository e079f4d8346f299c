/**
 * Notification channels, their "Send test" limits and the routing policies, built once by the
 * composition root on one channels repository.
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import { createPoliciesService } from './policies.js';
import { createChannelsRepo } from './repo.js';
import { channelsRoutes } from './routes.js';
import { CHANNEL_TEST_LIMITS, createChannelsService, type ChannelsDeps } from './service.js';

export interface ChannelsAssemblyDeps extends Omit<ChannelsDeps, 'repo' | 'testLimits'> {
  db: Knex;
  limiter: LimiterFactory;
}

export function assembleChannels(deps: ChannelsAssemblyDeps) {
  const { bus, audit, limiter } = deps;
  const repo = createChannelsRepo(deps.db);
  const { perAccount, perChannel } = CHANNEL_TEST_LIMITS;
  const channels = createChannelsService({
    repo,
    box: deps.box,
    bus,
    clock: deps.clock,
    log: deps.log,
    mailer: deps.mailer,
    allowPrivateWebhooks: deps.allowPrivateWebhooks,
    authUrl: deps.authUrl,
    audit,
    testLimits: {
      perAccount: limiter(perAccount.name, perAccount.points, perAccount.durationSeconds),
      perChannel: limiter(perChannel.name, perChannel.points, perChannel.durationSeconds),
    },
  });
  const policies = createPoliciesService({ repo, bus, audit });
  return { routes: mountRoutes(channelsRoutes, { channels, policies }) };
}
