/** /api/tokens: an account's own API tokens. Session cookie only: a token never manages tokens (spec). */
import Router from '@koa/router';
import { z } from 'zod';
import { NotFound } from '../lib/errors.js';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireCookieSession } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { TokensService } from './service.js';

const createSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(100),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});

export function tokensRoutes(tokens: TokensService): Router {
  const router = new Router();
  router.use('/api/tokens', requireCookieSession());

  router.get('/api/tokens', async (ctx) => {
    ctx.body = await tokens.list(currentPrincipal(ctx.state).userId);
  });

  router.post('/api/tokens', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(createSchema, ctx.request.body);
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
    const id = z.coerce.number().int().positive().safeParse(ctx.params['id']);
    if (!id.success) throw new NotFound('No such token');
    ctx.body = await tokens.revoke(auditActor(ctx), currentPrincipal(ctx.state).userId, id.data);
  });

  return router;
}
