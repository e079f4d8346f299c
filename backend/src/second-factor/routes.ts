/** /api/account/totp/*: enrol, confirm and remove an authenticator (browser session only). */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { Invalid } from '../lib/errors.js';
import { currentPrincipal, requireCookieSession } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { UsersService } from '../users/service.js';
import type { SecondFactorService } from './service.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { totpCodeBody, totpEnrolment, totpPasswordBody } from '../../../contracts/accounts.js';

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
    const { code } = parseInput(totpCodeBody, ctx.request.body);
    await secondFactor.confirmEnrolment(auditActor(ctx), principal.userId, code);
    ctx.status = 204;
  });

  router.post('/api/account/totp/disable', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { password } = parseInput(totpPasswordBody, ctx.request.body);
    if (!(await users.passwordMatches(principal.userId, password))) {
      throw new Invalid('password: the password is not right', { field: 'password' });
    }
    await secondFactor.disable(auditActor(ctx), principal.userId);
    ctx.status = 204;
  });

  return router;
}

const TOTP = 'Account';
/** What second-factor/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const secondFactorApi: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/account/totp/setup',
    tag: TOTP,
    access: 'browser-session',
    summary: 'Start enrolling an authenticator app: a new secret, pending until confirmed',
    responses: {
      200: { description: 'The secret for the app', schema: totpEnrolment },
      409: refusalDoc('Two-factor authentication is on: turn it off first'),
    },
  },
  {
    method: 'post',
    path: '/api/account/totp/confirm',
    tag: TOTP,
    access: 'browser-session',
    summary: "Confirm the enrolment with the app's current code; from now on sign-in asks for one",
    body: totpCodeBody,
    responses: {
      204: { description: 'Two-factor authentication is on' },
      409: refusalDoc('Start the enrolment first'),
    },
  },
  {
    method: 'post',
    path: '/api/account/totp/disable',
    tag: TOTP,
    access: 'browser-session',
    summary: 'Remove the authenticator app (the password is required)',
    body: totpPasswordBody,
    responses: { 204: { description: 'Two-factor authentication is off' } },
  },
];
