/**
 * Canary rollouts in the console (administrators): the list, and resuming one that its canary's
 * failed update halted (canary.ts).
 */
import Router from '@koa/router';
import { auditActor } from '../http/audit-actor.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import type { AgentUpdates } from './rollout.js';
import type { RolloutListItem } from './rollouts-repo.js';
import { agentRollout, agentRolloutList, type AgentRollout } from '../../../contracts/agents.js';

export interface RolloutRoutesDeps {
  updates: Pick<AgentUpdates, 'listRollouts' | 'resumeRollout'>;
}

function rolloutView(rollout: RolloutListItem): AgentRollout {
  return {
    id: rollout.id,
    customerId: rollout.customerId,
    customerName: rollout.customerName,
    arch: rollout.arch,
    version: rollout.version,
    state: rollout.state,
    canary:
      rollout.canarySystemId === null ? null : { id: rollout.canarySystemId, name: rollout.canarySystemName ?? '' },
    startedAt: rollout.startedAt.toISOString(),
    changedAt: rollout.changedAt.toISOString(),
  };
}

export function rolloutRoutes({ updates }: RolloutRoutesDeps): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/agent-rollouts', admin, async (ctx) => {
    ctx.body = { rollouts: (await updates.listRollouts()).map(rolloutView) };
  });

  router.post('/api/agent-rollouts/:id/resume', admin, async (ctx) => {
    ctx.body = rolloutView(await updates.resumeRollout(auditActor(ctx), idOf(ctx.params['id'], 'rollout')));
  });

  return router;
}

const AGENTS = 'Agents';
export const rolloutApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/agent-rollouts',
    tag: AGENTS,
    access: 'admin',
    summary: 'Canary rollouts: not yet released first, then released, newest change first (at most 200)',
    responses: { 200: { description: 'The rollouts', schema: agentRolloutList } },
  },
  {
    method: 'post',
    path: '/api/agent-rollouts/:id/resume',
    tag: AGENTS,
    access: 'admin',
    summary: 'Resume a rollout its canary halted: the canary is offered the build again',
    responses: {
      200: { description: 'The rollout, back in its canary state', schema: agentRollout },
      404: refusalDoc('No such rollout'),
      409: refusalDoc('Only a halted rollout can be resumed, and only with a canary that reported recently'),
    },
  },
];
