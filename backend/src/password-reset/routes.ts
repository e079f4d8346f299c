/**
 * The public password endpoints (docs/api.md "Public"). Like sign-in they need
 * no session and no CSRF token, but refuse a foreign Origin (contracts.md), so
 * another site cannot make visitors' browsers fire reset mails. Rate limits per
 * client address and per e-mail are applied where the app mounts this router.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { refuseForeignOrigin, type OriginRule } from '../http/origin.js';
import { parseInput } from '../lib/validate.js';
import type { PasswordResetService } from './service.js';

const forgotSchema = z.object({
  email: z.string({ error: 'is required' }).trim().min(1, 'is required').max(320, 'is too long'),
});

const resetSchema = z.object({
  token: z.string({ error: 'is required' }).min(1, 'is required').max(512, 'is too long'),
  // the password rule itself (bytes, not the e-mail or username) is checked by the service
  password: z.string({ error: 'is required' }).max(1024, 'is too long'),
});

export interface PasswordResetRoutesDeps {
  resets: Pick<PasswordResetService, 'requestReset' | 'resetPassword'>;
  origins: OriginRule;
}

export function passwordResetRoutes({ resets, origins }: PasswordResetRoutesDeps): Router {
  const router = new Router();

  router.post('/api/auth/password/forgot', async (ctx) => {
    refuseForeignOrigin(ctx, origins);
    const { email } = parseInput(forgotSchema, ctx.request.body);
    await resets.requestReset(email, ctx.state.clientIp ?? null);
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('/api/auth/password/reset', async (ctx) => {
    refuseForeignOrigin(ctx, origins);
    const { token, password } = parseInput(resetSchema, ctx.request.body);
    await resets.resetPassword(token, password, ctx.state.clientIp ?? null);
    ctx.status = 204;
  });

  return router;
}
