/**
 * /api/agent-settings: list a cluster's or a system's settings (a system's with its effective
 * view), create, change and delete them. Reading needs sight of the customer; writing ADMIN or
 * an OPERATOR granted it. Secret values are accepted, never returned.
 */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { Invalid, NotFound } from '../lib/errors.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { Scope } from './repo.js';
import type { AgentSettingsService } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
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

/** A path id that names no integer row (too long, not a number) is simply not there. */
function settingId(raw: string | undefined): number {
  if (raw === undefined || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647)
    throw new NotFound('No such agent setting');
  return Number(raw);
}

function scopeOf(query: unknown): Scope {
  const q = parseInput(listQuery, query);
  if ((q.cluster === undefined) === (q.system === undefined))
    throw new Invalid('cluster: give exactly one of cluster or system', { field: 'cluster' });
  return q.cluster !== undefined
    ? { type: 'cluster', id: Number(q.cluster) }
    : { type: 'system', id: Number(q.system) };
}

export function agentSettingsRoutes(settings: AgentSettingsService): Router {
  const router = new Router();
  // a viewer never writes: refused before its body is read
  const writer = requireRole('ADMIN', 'OPERATOR');

  router.get('/api/agent-settings', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await settings.list(principal, scopeOf(ctx.query));
  });
  router.post('/api/agent-settings', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(createSchema, ctx.request.body);
    ctx.status = 201;
    ctx.body = await settings.create(auditActor(ctx), principal, input);
  });
  router.patch('/api/agent-settings/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(updateSchema, ctx.request.body);
    ctx.body = await settings.update(auditActor(ctx), principal, settingId(ctx.params['id']), input);
  });
  router.delete('/api/agent-settings/:id', writer, async (ctx) => {
    await settings.remove(auditActor(ctx), currentPrincipal(ctx.state), settingId(ctx.params['id']));
    ctx.status = 204;
  });
  return router;
}

/** What agent-settings/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const SETTINGS = 'Agents';
export const agentSettingsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/agent-settings',
    tag: SETTINGS,
    access: 'signed-in',
    summary: "A cluster's or a system's agent settings (a system's with what its agent gets)",
    query: listQuery,
    responses: { 200: { description: 'The settings; secrets without their value', schema: agentSettingsListing } },
  },
  {
    method: 'post',
    path: '/api/agent-settings',
    tag: SETTINGS,
    access: 'admin-or-operator',
    summary: 'Set an agent setting on a cluster or a system',
    body: createSchema,
    responses: {
      201: { description: 'Created', schema: agentSetting },
      409: refusalDoc('The key is set at this scope'),
    },
  },
  {
    method: 'patch',
    path: '/api/agent-settings/:id',
    tag: SETTINGS,
    access: 'admin-or-operator',
    summary: 'Change an agent setting',
    body: updateSchema,
    responses: { 200: { description: 'Changed', schema: agentSetting } },
  },
  {
    method: 'delete',
    path: '/api/agent-settings/:id',
    tag: SETTINGS,
    access: 'admin-or-operator',
    summary: 'Delete an agent setting',
    responses: { 204: { description: 'Deleted' } },
  },
];
