/** /api/tokens: an account's own API tokens. Session cookie only: a token never manages tokens (spec). */
import Router from '@koa/router';
import { idOf } from '../lib/ids.js';
import { z } from 'zod';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireCookieSession } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { TokensService } from './service.js';
import type { RouteDoc } from '../http/openapi.js';
import { apiToken, createTokenBody, newApiToken } from '../../../contracts/accounts.js';

export function tokensRoutes(tokens: TokensService): Router {
  const router = new Router();
  router.use('/api/tokens', requireCookieSession());

  router.get('/api/tokens', async (ctx) => {
    ctx.body = await tokens.list(currentPrincipal(ctx.state).userId);
  });

  router.post('/api/tokens', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(createTokenBody, ctx.request.body);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await tokens.create(
      auditActor(ctx),
      principal.userId,
      input.name,
      input.expiresAt ? new Date(input.expiresAt) : null,
    );
  });

  router.delete('/api/tokens/:id', async (ctx) => {
    const id = idOf(ctx.params['id'], 'token');
    ctx.body = await tokens.revoke(auditActor(ctx), currentPrincipal(ctx.state).userId, id);
  });

  return router;
}

const TOKENS = 'API tokens';
/** What tokens/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const tokensApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/tokens',
    tag: TOKENS,
    access: 'browser-session',
    summary: "The account's own API tokens, revoked and expired ones included",
    responses: { 200: { description: 'The tokens (never their values)', schema: z.array(apiToken) } },
  },
  {
    method: 'post',
    path: '/api/tokens',
    tag: TOKENS,
    access: 'browser-session',
    summary: 'Make an API token',
    description: 'The answer is the only time the value is shown.',
    body: createTokenBody,
    responses: { 201: { description: 'Made, with its value', schema: newApiToken } },
  },
  {
    method: 'delete',
    path: '/api/tokens/:id',
    tag: TOKENS,
    access: 'browser-session',
    summary: 'Revoke an API token (at once; it stays listed as revoked)',
    responses: { 200: { description: 'The revoked token', schema: apiToken } },
  },
];
