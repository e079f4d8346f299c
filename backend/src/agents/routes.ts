/**
 * /api/agent/* (public: agents and installers carry no account), the rollout
 * setting and the "retry update" recovery action (administrators).
 */
import { auditActor } from '../http/audit-actor.js';
import { open } from 'node:fs/promises';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { statusOf } from '../http/errors.js';
import { Misconfigured, NotFound, Unauthenticated } from '../lib/errors.js';
import { requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AgentUpdates } from './rollout.js';
import type { AgentEndpoints } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { agentOffer, rolloutMode } from '../../../contracts/agents.js';
import { errorBody } from '../../../contracts/common.js';

export interface AgentRoutesDeps {
  endpoints: AgentEndpoints;
  updates: Pick<AgentUpdates, 'getRolloutMode' | 'setRolloutMode' | 'retryUpdate'>;
}

const versionQuery = z.object({
  arch: z.string({ error: 'is required' }).regex(/^[A-Za-z0-9_]{1,32}$/, 'must be an architecture such as x86_64'),
});
const optionalText = z.string({ error: 'must be given once' }).optional();
const configQuery = z.object({ key: optionalText, cluster: optionalText });
const rolloutSchema = z.object({
  mode: z.enum(['all', 'canary'], { error: 'must be "all" or "canary"' }),
});

/**
 * The spec gives the config endpoint's refusals word for word (`{error: "Unauthorized"}`,
 * `{error: "Server misconfigured"}`): sent as written, without `code`.
 */
const exactReplies: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof Unauthenticated || error instanceof Misconfigured)) throw error;
    ctx.status = statusOf(error);
    ctx.body = { error: error.message };
  }
};

function systemId(raw: string | undefined): number {
  if (raw === undefined || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647)
    throw new NotFound('No such system');
  return Number(raw);
}

export function agentRoutes({ endpoints, updates }: AgentRoutesDeps): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/agent/install.sh', async (ctx) => {
    const script = endpoints.installScript(ctx.query['key']);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/x-shellscript; charset=utf-8';
    ctx.body = script;
  });

  router.get('/api/agent/version', async (ctx) => {
    const { arch } = parseInput(versionQuery, ctx.query);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = await endpoints.newest(arch);
  });

  router.get('/api/agent/download/:version/:arch', async (ctx) => {
    // only builds listed in a manifest, by their indexed path: nothing from the URL reaches the file system
    const build = await endpoints.build(ctx.params['version'] ?? '', ctx.params['arch'] ?? '');
    const handle = await open(build.file, 'r').catch(() => {
      throw new NotFound('No such agent build');
    });
    ctx.type = 'application/octet-stream';
    ctx.length = (await handle.stat()).size;
    ctx.set('Content-Disposition', `attachment; filename="argus-agent-linux-${build.arch}"`);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('ETag', `"${build.sha256}"`);
    ctx.body = handle.createReadStream();
  });

  router.get('/api/agent/config', exactReplies, async (ctx) => {
    const query = parseInput(configQuery, ctx.query);
    const yaml = await endpoints.config({
      key: query.key,
      cluster: query.cluster,
      principal: ctx.state.principal,
      clientIp: ctx.state.clientIp,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/yaml; charset=utf-8';
    ctx.body = yaml;
  });

  router.get('/api/settings/agent-rollout', admin, async (ctx) => {
    ctx.body = { mode: await updates.getRolloutMode() };
  });

  router.put('/api/settings/agent-rollout', admin, async (ctx) => {
    const { mode } = parseInput(rolloutSchema, ctx.request.body);
    ctx.body = { mode: await updates.setRolloutMode(auditActor(ctx), mode) };
  });

  // the recovery action of the update-failure guard
  router.post('/api/systems/:id/retry-update', admin, async (ctx) => {
    if (!(await updates.retryUpdate(auditActor(ctx), systemId(ctx.params['id'])))) throw new NotFound('No such system');
    ctx.status = 204;
  });

  return router;
}

/** What agents/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const AGENTS = 'Agents';
export const agentApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/agent/install.sh',
    tag: AGENTS,
    access: 'public',
    summary: "The one-line installer, for a cluster's enrolment key",
    query: z.object({ key: z.string().optional().meta({ description: "The cluster's enrolment key" }) }),
    responses: { 200: { description: 'A POSIX shell script', contentType: 'text/x-shellscript' } },
  },
  {
    method: 'get',
    path: '/api/agent/version',
    tag: AGENTS,
    access: 'public',
    summary: 'The newest agent build for an architecture',
    query: versionQuery,
    responses: {
      200: { description: 'Version, download URL and sha256', schema: agentOffer },
      404: refusalDoc('No agent build available'),
    },
  },
  {
    method: 'get',
    path: '/api/agent/download/:version/:arch',
    tag: AGENTS,
    access: 'public',
    summary: 'An agent build',
    responses: { 200: { description: 'The executable', contentType: 'application/octet-stream' } },
  },
  {
    method: 'get',
    path: '/api/agent/config',
    tag: AGENTS,
    access: 'enrollment',
    summary: "An agent's config.yaml for a cluster: by enrolment key, or for a signed-in account that may write there",
    query: configQuery,
    responses: {
      200: { description: 'config.yaml', contentType: 'text/yaml' },
      403: { description: 'Refused', schema: errorBody },
      500: { description: 'WEBHOOK_SECRET is not configured', schema: errorBody },
    },
  },
  {
    method: 'get',
    path: '/api/settings/agent-rollout',
    tag: AGENTS,
    access: 'admin',
    summary: 'How agent updates roll out',
    responses: { 200: { description: 'all or canary', schema: rolloutMode } },
  },
  {
    method: 'put',
    path: '/api/settings/agent-rollout',
    tag: AGENTS,
    access: 'admin',
    summary: 'Choose how agent updates roll out',
    body: rolloutSchema,
    responses: { 200: { description: 'Saved', schema: rolloutMode } },
  },
  {
    method: 'post',
    path: '/api/systems/:id/retry-update',
    tag: AGENTS,
    access: 'admin',
    summary: 'Offer a system the update its agent failed to install once more',
    responses: { 204: { description: 'Done' } },
  },
];
