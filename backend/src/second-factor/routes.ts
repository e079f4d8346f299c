/** /api/account/totp/*: enrol, confirm and remove an authenticator (browser session only). */
import { Invalid } from '../lib/errors.js';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import type { UsersService } from '../users/service.js';
import type { SecondFactorService } from './service.js';
import { totpCodeBody, totpEnrolment, totpPasswordBody } from '../../../contracts/accounts.js';

export interface SecondFactorRoutesDeps {
  secondFactor: SecondFactorService;
  users: UsersService;
}

const route = routeOf<SecondFactorRoutesDeps>();
const TOTP = 'Account';
// an API token never changes how its account signs in
const access = 'browser-session';

export const secondFactorRoutes = [
  route({
    method: 'post',
    path: '/api/account/totp/setup',
    tag: TOTP,
    access,
    summary: 'Start enrolling an authenticator app: a new secret, pending until confirmed',
    headers: { 'Cache-Control': 'no-store' },
    responses: {
      200: { description: 'The secret for the app', schema: totpEnrolment },
      409: refusalDoc('Two-factor authentication is on: turn it off first'),
    },
    handler: ({ secondFactor }, { actor, principal }) =>
      secondFactor.beginEnrolment(actor, { id: principal.userId, email: principal.email }),
  }),
  route({
    method: 'post',
    path: '/api/account/totp/confirm',
    tag: TOTP,
    access,
    summary: "Confirm the enrolment with the app's current code; from now on sign-in asks for one",
    body: totpCodeBody,
    responses: {
      204: { description: 'Two-factor authentication is on' },
      409: refusalDoc('Start the enrolment first'),
    },
    handler: async ({ secondFactor }, { actor, principal, body }) => {
      await secondFactor.confirmEnrolment(actor, principal.userId, body.code);
    },
  }),
  route({
    method: 'post',
    path: '/api/account/totp/disable',
    tag: TOTP,
    access,
    summary: 'Remove the authenticator app (the password is required)',
    body: totpPasswordBody,
    responses: { 204: { description: 'Two-factor authentication is off' } },
    handler: async ({ secondFactor, users }, { actor, principal, body }) => {
      if (!(await users.passwordMatches(principal.userId, body.password))) {
        throw new Invalid('password: the password is not right', { field: 'password' });
      }
      await secondFactor.disable(actor, principal.userId);
    },
  }),
];
