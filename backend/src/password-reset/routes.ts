/**
 * The public password endpoints (docs/api.md "Public"). Like sign-in they need no session and no
 * CSRF token, but refuse a foreign Origin (docs/api.md), so another site cannot make visitors'
 * browsers fire reset mails. The limits per client address and per e-mail (limits.ts) run in front
 * of the forgot route, before its Origin and input are read.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { forgotPasswordBody, resetPasswordBody } from '../../../contracts/accounts.js';
import { foreignOriginRefused, type OriginRule } from '../http/origin.js';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import type { PasswordResetService } from './service.js';

export interface PasswordResetRoutesDeps {
  resets: Pick<PasswordResetService, 'requestReset' | 'resetPassword'>;
  origins: OriginRule;
  /** The forgot route's limits (limits.ts); none in tests of the route alone. */
  forgotLimits?: Middleware;
}

const route = routeOf<PasswordResetRoutesDeps>();
const PASSWORD = 'Authentication';

export const passwordResetRoutes = [
  route({
    method: 'post',
    path: '/api/auth/password/forgot',
    tag: PASSWORD,
    access: 'public',
    summary: 'Ask for a password reset link by e-mail',
    description:
      'Refuses a foreign Origin. 202 whether or not the account exists; over the per-e-mail limit nothing ' +
      'is sent (over the per-client-address limit: 429). 503 while mail is switched off.',
    before: ({ forgotLimits, origins }) => [...(forgotLimits ? [forgotLimits] : []), foreignOriginRefused(origins)],
    body: forgotPasswordBody,
    responses: { 202: { description: 'Accepted', schema: z.object({}).strict() } },
    handler: async ({ resets }, { body, address }) => {
      await resets.requestReset(body.email, address);
      return {};
    },
  }),
  route({
    method: 'post',
    path: '/api/auth/password/reset',
    tag: PASSWORD,
    access: 'public',
    summary: "Set a new password with the link's token",
    description: "Refuses a foreign Origin. Ends the account's sessions and trusted devices.",
    before: ({ origins }) => [foreignOriginRefused(origins)],
    body: resetPasswordBody,
    responses: {
      204: { description: 'The password is set' },
      400: refusalDoc('Invalid input, a password the rules refuse, or a link that is not (or no longer) valid'),
    },
    handler: async ({ resets }, { body, address }) => {
      await resets.resetPassword(body.token, body.password, address);
    },
  }),
];
