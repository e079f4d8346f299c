/** /api/account/totp/*: enrol, confirm and remove an authenticator (browser session only). */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import { Invalid } from '../lib/errors.js';
import { currentPrincipal, requireCookieSession } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { UsersService } from '../users/service.js';
import type { SecondFactorService } from './service.js';

const codeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'must be the 6-digit code'),
});
const passwordSchema = z.object({ password: z.string().min(1, 'is required').max(1024) });

export function secondFactorRoutes(secondFactor: SecondFactorService, users: UsersService): Router {
  const router = new Router();
  // an API token never changes how its account signs in
  router.use('/api/account/totp', requireCookieSession());

  router.post('/api/account/totp/setup', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await secondFactor.beginEnrolment(auditActor(ctx), { id: principal.userId, email: principal.email });
  });

  router.post('/api/account/totp/confirm', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { code } = parseInput(codeSchema, ctx.request.body);
    await secondFactor.confirmEnrolment(auditActor(ctx), principal.userId, code);
    ctx.status = 204;
  });

  router.post('/api/account/totp/disable', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { password } = parseInput(passwordSchema, ctx.request.body);
    if (!(await users.passwordMatches(principal.userId, password))) {
      throw new Invalid('password: the password is not right', { field: 'password' });
    }
    await secondFactor.disable(auditActor(ctx), principal.userId);
    ctx.status = 204;
  });

  return router;
}
