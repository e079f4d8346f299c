/** /api/users (ADMIN) and /api/account (every account, its own profile and password). */
import Router from '@koa/router';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { NotFound } from '../lib/errors.js';
import { parseInput } from '../lib/validate.js';
import { createUserSchema, idParam, passwordChangeSchema, profileSchema, updateUserSchema } from './schema.js';
import type { UsersService } from './service.js';

function userId(raw: string | undefined): number {
  const parsed = idParam.safeParse(raw);
  if (!parsed.success) throw new NotFound('No such user');
  return parsed.data;
}

export function usersRoutes(users: UsersService): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/users', admin, async (ctx) => {
    ctx.body = await users.list();
  });

  router.post('/api/users', admin, async (ctx) => {
    const input = parseInput(createUserSchema, ctx.request.body);
    ctx.status = 201;
    ctx.body = { user: await users.create(auditActor(ctx), input) };
  });

  router.patch('/api/users/:id', admin, async (ctx) => {
    const input = parseInput(updateUserSchema, ctx.request.body);
    ctx.body = { user: await users.update(auditActor(ctx), userId(ctx.params['id']), input) };
  });

  router.delete('/api/users/:id', admin, async (ctx) => {
    await users.remove(auditActor(ctx), userId(ctx.params['id']));
    ctx.status = 204;
  });

  router.patch('/api/account', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(profileSchema, ctx.request.body);
    ctx.body = { user: await users.updateProfile(auditActor(ctx), principal.userId, input) };
  });

  router.post('/api/account/password', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(passwordChangeSchema, ctx.request.body);
    await users.changePassword(
      auditActor(ctx),
      principal.userId,
      input.currentPassword,
      input.newPassword,
      principal.sessionId,
    );
    ctx.status = 204;
  });

  return router;
}
