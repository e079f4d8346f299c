/**
 * /api/agent/* (public: agents and installers carry no account), the rollout
 * setting and the "retry update" recovery action (administrators).
 */
import { open } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { statusOf } from '../http/errors.js';
import { Misconfigured, NotFound, Unauthenticated } from '../lib/errors.js';
import { idParam, routeOf, textParam } from '../http/route.js';
import type { AgentUpdates } from './rollout.js';
import type { AgentEndpoints } from './service.js';
import { ENROLLMENT_KEY_HEADER } from '../../../contracts/agents.js';
import type { Logger } from '../lib/logger.js';
import { refusalDoc } from '../http/openapi.js';
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
 * docs/api.md "Answers given word for word" gives the config endpoint's refusals (`{error: "Unauthorized"}`,
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

/**
 * The enrolment key from its header; from `?key=` (installers and commands copied before the header)
 * for a deprecation period, with a warning that names the route and the address, never the key.
 */
function enrollmentKey(ctx: Context, fromQuery: string | undefined, log: AgentRoutesDeps['log']): string | undefined {
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

const route = routeOf<AgentRoutesDeps>();
const tag = 'Agents';

export const agentRoutes = [
  route({
    method: 'get',
    path: '/api/agent/install.sh',
    tag,
    access: 'enrollment',
    summary: "The one-line installer, for a cluster's enrolment key",
    description: keyHeaderDoc,
    query: installQuery,
    responses: { 200: { description: 'A POSIX shell script', contentType: 'text/x-shellscript' } },
    handler: ({ endpoints, log }, { query, ctx }) => {
      const script = endpoints.installScript(enrollmentKey(ctx, query.key, log));
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/x-shellscript; charset=utf-8';
      return script;
    },
  }),
  route({
    method: 'get',
    path: '/api/agent/version',
    tag,
    access: 'public',
    summary: 'The newest agent build for an architecture, or one release of it',
    query: versionQuery,
    headers: { 'Cache-Control': 'no-cache' },
    responses: {
      200: { description: 'Version, download URL and sha256', schema: agentOffer },
      404: refusalDoc('No agent build available'),
    },
    handler: ({ endpoints }, { query }) => endpoints.newest(query.arch, query.version),
  }),
  route({
    method: 'get',
    path: '/api/agent/download/:version/:arch',
    tag,
    access: 'public',
    summary: 'An agent build',
    params: { version: textParam, arch: textParam },
    responses: { 200: { description: 'The executable', contentType: 'application/octet-stream' } },
    handler: async ({ endpoints }, { params, ctx }) => {
      // only builds listed in a manifest, by their indexed path: nothing from the URL reaches the file system
      const build = await endpoints.build(params.version, params.arch);
      const handle = await open(build.file, 'r').catch(() => {
        throw new NotFound('No such agent build');
      });
      ctx.type = 'application/octet-stream';
      ctx.length = (await handle.stat()).size;
      ctx.set('Content-Disposition', `attachment; filename="argus-agent-linux-${build.arch}"`);
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.set('ETag', `"${build.sha256}"`);
      return handle.createReadStream();
    },
  }),
  route({
    method: 'get',
    path: '/api/agent/config',
    tag,
    access: 'enrollment',
    summary: "An agent's config.yaml for a cluster: by enrolment key, or for a signed-in account that may write there",
    description: `${keyHeaderDoc} A signed-in account names the cluster with \`?cluster=\`.`,
    query: configQuery,
    responses: {
      200: { description: 'config.yaml', contentType: 'text/yaml' },
      403: { description: 'Refused', schema: errorBody },
      500: { description: 'WEBHOOK_SECRET is not configured', schema: errorBody },
    },
    before: () => [exactReplies],
    handler: async ({ endpoints, log }, { query, ctx }) => {
      const yaml = await endpoints.config({
        key: enrollmentKey(ctx, query.key, log),
        cluster: query.cluster,
        principal: ctx.state.principal,
        clientIp: ctx.state.clientIp,
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/yaml; charset=utf-8';
      return yaml;
    },
  }),
  route({
    method: 'get',
    path: '/api/settings/agent-rollout',
    tag,
    access: 'admin',
    summary: 'How agent updates roll out',
    responses: { 200: { description: 'all or canary', schema: rolloutMode } },
    handler: async ({ updates }) => ({ mode: await updates.getRolloutMode() }),
  }),
  route({
    method: 'put',
    path: '/api/settings/agent-rollout',
    tag,
    access: 'admin',
    summary: 'Choose how agent updates roll out',
    body: rolloutSchema,
    responses: { 200: { description: 'Saved', schema: rolloutMode } },
    handler: async ({ updates }, { actor, body }) => ({ mode: await updates.setRolloutMode(actor, body.mode) }),
  }),
  // the recovery action of the update-failure guard
  route({
    method: 'post',
    path: '/api/systems/:id/retry-update',
    tag,
    access: 'admin',
    summary: 'Offer a system the update its agent failed to install once more',
    params: { id: idParam('system') },
    responses: { 204: { description: 'Done' } },
    handler: async ({ updates }, { actor, params }) => {
      if (!(await updates.retryUpdate(actor, params.id))) throw new NotFound('No such system');
    },
  }),
];
