/** /api/tokens: an account's own API tokens. Session cookie only: a token never manages tokens (docs/api.md "Token management"). */
import { z } from 'zod';
import { idParam, routeOf } from '../http/route.js';
import type { TokensService } from './service.js';
import { apiToken, createTokenBody, newApiToken } from '../../../contracts/accounts.js';

const route = routeOf<TokensService>();
const TOKENS = 'API tokens';

export const tokensRoutes = [
  route({
    method: 'get',
    path: '/api/tokens',
    tag: TOKENS,
    access: 'browser-session',
    summary: "The account's own API tokens, revoked and expired ones included",
    responses: { 200: { description: 'The tokens (never their values)', schema: z.array(apiToken) } },
    handler: (tokens, { principal }) => tokens.list(principal.userId),
  }),
  route({
    method: 'post',
    path: '/api/tokens',
    tag: TOKENS,
    access: 'browser-session',
    summary: 'Make an API token',
    description: 'The answer is the only time the value is shown.',
    body: createTokenBody,
    headers: { 'Cache-Control': 'no-store' },
    responses: { 201: { description: 'Made, with its value', schema: newApiToken } },
    handler: (tokens, { actor, principal, body }) =>
      tokens.create(actor, principal.userId, body.name, body.expiresAt ? new Date(body.expiresAt) : null),
  }),
  route({
    method: 'delete',
    path: '/api/tokens/:id',
    tag: TOKENS,
    access: 'browser-session',
    summary: 'Revoke an API token (at once; it stays listed as revoked)',
    params: { id: idParam('token') },
    responses: { 200: { description: 'The revoked token', schema: apiToken } },
    handler: (tokens, { actor, principal, params }) => tokens.revoke(actor, principal.userId, params.id),
  }),
];
