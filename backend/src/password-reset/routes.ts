/**
 * The public password endpoints (docs/api.md "Public"). Like sign-in they need
 * no session and no CSRF token, but refuse a foreign Origin (contracts.md), so
 * another site cannot make visitors' browsers fire reset mails. Rate limits per
 * client address and per e-mail are applied where the app mounts this router.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { forgotPasswordBody, resetPasswordBody } from '../../../contracts/accounts.js';
import { refuseForeignOrigin, type OriginRule } from '../http/origin.js';
import { parseInput } from '../lib/validate.js';
import type { PasswordResetService } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';

export interface PasswordResetRoutesDeps {
  resets: Pick<PasswordResetService, 'requestReset' | 'resetPassword'>;
  origins: OriginRule;
}

export function passwordResetRoutes({ resets, origins }: PasswordResetRoutesDeps): Router {
  const router = new Router();

  router.post('/api/auth/password/forgot', async (ctx) => {
    refuseForeignOrigin(ctx, origins);
    const { email } = parseInput(forgotPasswordBody, ctx.request.body);
    await resets.requestReset(email, ctx.state.clientIp ?? null);
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('/api/auth/password/reset', async (ctx) => {
    refuseForeignOrigin(ctx, origins);
    const { token, password } = parseInput(resetPasswordBody, ctx.request.body);
    await resets.resetPassword(token, password, ctx.state.clientIp ?? null);
    ctx.status = 204;
  });

  return router;
}

const PASSWORD = 'Authentication';
/**
 * What password-reset/routes.ts serves, for the OpenAPI document (http/openapi.ts); also the
 * limits limits.ts mounts in front of the same forgot route.
 */
export const passwordResetApi: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/auth/password/forgot',
    tag: PASSWORD,
    access: 'public',
    summary: 'Ask for a password reset link by e-mail',
    description:
      'Refuses a foreign Origin. 202 whether or not the account exists; over the per-e-mail limit nothing ' +
      'is sent (over the per-client-address limit: 429). 503 while mail is switched off.',
    body: forgotPasswordBody,
    responses: { 202: { description: 'Accepted', schema: z.object({}).strict() } },
  },
  {
    method: 'post',
    path: '/api/auth/password/reset',
    tag: PASSWORD,
    access: 'public',
    summary: "Set a new password with the link's token",
    description: "Refuses a foreign Origin. Ends the account's sessions and trusted devices.",
    body: resetPasswordBody,
    responses: {
      204: { description: 'The password is set' },
      400: refusalDoc('Invalid input, a password the rules refuse, or a link that is not (or no longer) valid'),
    },
  },
];
