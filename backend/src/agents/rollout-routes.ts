/**
 * Canary rollouts in the console (administrators): the list, and resuming one that its canary's
 * failed update halted (canary.ts).
 */
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
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

const route = routeOf<RolloutRoutesDeps>();

export const rolloutRoutes = [
  route({
    method: 'get',
    path: '/api/agent-rollouts',
    tag: 'Agents',
    access: 'admin',
    summary: 'Canary rollouts: not yet released first, then released, newest change first (at most 200)',
    responses: { 200: { description: 'The rollouts', schema: agentRolloutList } },
    handler: async ({ updates }) => ({ rollouts: (await updates.listRollouts()).map(rolloutView) }),
  }),
  route({
    method: 'post',
    path: '/api/agent-rollouts/:id/resume',
    tag: 'Agents',
    access: 'admin',
    summary: 'Resume a rollout its canary halted: the canary is offered the build again',
    params: { id: idParam('rollout') },
    responses: {
      200: { description: 'The rollout, back in its canary state', schema: agentRollout },
      404: refusalDoc('No such rollout'),
      409: refusalDoc('Only a halted rollout can be resumed, and only with a canary that reported recently'),
    },
    handler: async ({ updates }, { actor, params }) => rolloutView(await updates.resumeRollout(actor, params.id)),
  }),
];
