/**
 * /api/agent-settings: list a cluster's or a system's settings (a system's with its effective
 * view), create, change and delete them. Reading needs sight of the customer; writing ADMIN or
 * an OPERATOR granted it (a viewer is refused before its body is read). Secret values are
 * accepted, never returned.
 */
import { z } from 'zod';
import { Invalid } from '../lib/errors.js';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
import type { Scope } from './repo.js';
import type { AgentSettingsService } from './service.js';
import {
  agentSetting,
  agentSettingChangesBody as updateSchema,
  agentSettingsListing,
  newAgentSettingBody as createSchema,
} from '../../../contracts/agents.js';

const numericId = z
  .string({ error: 'must be given once' })
  .regex(/^[1-9]\d{0,9}$/, 'must be an id')
  .refine((raw) => Number(raw) <= 2_147_483_647, 'must be an id');
const listQuery = z.object({ cluster: numericId.optional(), system: numericId.optional() });

function scopeOf(query: z.infer<typeof listQuery>): Scope {
  if ((query.cluster === undefined) === (query.system === undefined))
    throw new Invalid('cluster: give exactly one of cluster or system', { field: 'cluster' });
  return query.cluster !== undefined
    ? { type: 'cluster', id: Number(query.cluster) }
    : { type: 'system', id: Number(query.system) };
}

const route = routeOf<AgentSettingsService>();
const tag = 'Agents';
const settingId = { id: idParam('agent setting') };

export const agentSettingsRoutes = [
  route({
    method: 'get',
    path: '/api/agent-settings',
    tag,
    access: 'signed-in',
    summary: "A cluster's or a system's agent settings (a system's with what its agent gets)",
    query: listQuery,
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The settings; secrets without their value', schema: agentSettingsListing } },
    handler: (settings, { principal, query }) => settings.list(principal, scopeOf(query)),
  }),
  route({
    method: 'post',
    path: '/api/agent-settings',
    tag,
    access: 'admin-or-operator',
    summary: 'Set an agent setting on a cluster or a system',
    body: createSchema,
    responses: {
      201: { description: 'Created', schema: agentSetting },
      409: refusalDoc('The key is set at this scope'),
    },
    handler: (settings, { actor, principal, body }) => settings.create(actor, principal, body),
  }),
  route({
    method: 'patch',
    path: '/api/agent-settings/:id',
    tag,
    access: 'admin-or-operator',
    summary: 'Change an agent setting',
    params: settingId,
    body: updateSchema,
    responses: { 200: { description: 'Changed', schema: agentSetting } },
    handler: (settings, { actor, principal, params, body }) => settings.update(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/agent-settings/:id',
    tag,
    access: 'admin-or-operator',
    summary: 'Delete an agent setting',
    params: settingId,
    responses: { 204: { description: 'Deleted' } },
    handler: async (settings, { actor, principal, params }) => {
      await settings.remove(actor, principal, params.id);
    },
  }),
];
