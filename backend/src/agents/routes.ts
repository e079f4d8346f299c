/**
 * /api/agent/* (public: agents and installers carry no account), the rollout
 * setting and the "retry update" recovery action (administrators).
 */
import { auditActor } from '../http/audit-actor.js';
import { open } from 'node:fs/promises';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { statusOf } from '../http/errors.js';
import { Misconfigured, NotFound, Unauthenticated } from '../lib/errors.js';
import { requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { AgentUpdates } from './rollout.js';
import type { AgentEndpoints } from './service.js';
import { ENROLLMENT_KEY_HEADER } from '../../../contracts/agents.js';
import type { Logger } from '../lib/logger.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { agentOffer, rolloutMode } from '../../../contracts/agents.js';
import { errorBody } from '../../../contracts/common.js';

export interface AgentRoutesDeps {
  endpoints: AgentEndpoints;
  updates: Pick<AgentUpdates, 'getRolloutMode' | 'setRolloutMode' | 'retryUpdate'>;
  /** Where a deprecated `?key=` is warned about (the server's logger; tests that do not look leave it out). */
  log?: Pick<Logger, 'warn'>;
}

const versionQuery = z.object({
  arch: z.string({ error: 'is required' }).regex(/^[A-Za-z0-9_]{1,32}$/, 'must be an architecture such as x86_64'),
  version: z
    .string({ error: 'must be given once' })
    .regex(/^\d{1,9}\.\d{1,9}\.\d{1,9}$/, 'must be a release number such as 2.28.1')
    .optional()
    .meta({
      description:
        "That release's build rather than the newest: what an agent's root start step checks a staged update against",
    }),
});
const optionalText = z.string({ error: 'must be given once' }).optional();
const deprecatedKey = optionalText.meta({
  deprecated: true,
  description: `Deprecated: the enrolment key in the URL, where access logs keep it. Send the ${ENROLLMENT_KEY_HEADER} header.`,
});
const installQuery = z.object({ key: deprecatedKey });
const configQuery = z.object({ key: deprecatedKey, cluster: optionalText });
const keyHeaderDoc = `The cluster's enrolment key goes in the \`${ENROLLMENT_KEY_HEADER}\` header, never in the URL.`;
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

export function agentRoutes({ endpoints, updates, log }: AgentRoutesDeps): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  /**
   * The enrolment key from its header; from `?key=` (installers and commands copied before the header)
   * for a deprecation period, with a warning that names the route and the address, never the key.
   */
  function enrollmentKey(ctx: Context, fromQuery: string | undefined): string | undefined {
    const header = ctx.get(ENROLLMENT_KEY_HEADER);
    if (header !== '') return header;
    if (fromQuery !== undefined)
      log?.warn(
        { path: ctx.path, clientIp: ctx.state.clientIp },
        `Enrolment key sent in the URL (?key=): deprecated, as proxies and access logs keep URLs; ` +
          `copy the install command again from the console (it sends the ${ENROLLMENT_KEY_HEADER} header)`,
      );
    return fromQuery;
  }

  router.get('/api/agent/install.sh', async (ctx) => {
    const query = parseInput(installQuery, ctx.query);
    const script = endpoints.installScript(enrollmentKey(ctx, query.key));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/x-shellscript; charset=utf-8';
    ctx.body = script;
  });

  router.get('/api/agent/version', async (ctx) => {
    const { arch, version } = parseInput(versionQuery, ctx.query);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = await endpoints.newest(arch, version);
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
      key: enrollmentKey(ctx, query.key),
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
    access: 'enrollment',
    summary: "The one-line installer, for a cluster's enrolment key",
    description: keyHeaderDoc,
    query: installQuery,
    responses: { 200: { description: 'A POSIX shell script', contentType: 'text/x-shellscript' } },
  },
  {
    method: 'get',
    path: '/api/agent/version',
    tag: AGENTS,
    access: 'public',
    summary: 'The newest agent build for an architecture, or one release of it',
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
    description: `${keyHeaderDoc} A signed-in account names the cluster with \`?cluster=\`.`,
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
