/**
 * First account, sign-in and the current account: /api/setup, /api/auth/*.
 */
import type { Middleware } from 'koa';
import { TooMany } from '../lib/errors.js';
import { foreignOriginRefused, type OriginRule } from '../http/origin.js';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import { randomToken } from '../lib/crypto.js';
import type { Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { UsersService } from '../users/service.js';
import type { LoginService } from './login-service.js';
import { TRUSTED_DEVICE_MS } from '../second-factor/service.js';
import { ABSOLUTE_MS, SESSION_COOKIE, TRUSTED_DEVICE_COOKIE, type Sessions } from './sessions.js';
import {
  authOptions,
  csrfAnswer,
  loginAnswer,
  loginBody,
  meAnswer,
  setupAccount,
  setupBody,
} from '../../../contracts/auth.js';

export interface AuthRoutesDeps {
  users: UsersService;
  login: LoginService;
  sessions: Sessions;
  mailer: Pick<Mailer, 'isEnabled'>;
  setupLimit: RateLimiter;
  origins: OriginRule;
}

const route = routeOf<AuthRoutesDeps>();
const AUTH = 'Authentication';
// `Secure` is not set here: http/cookie-transport.ts decides it for every cookie from AUTH_URL
const cookieOptions = { signed: true, httpOnly: true, sameSite: 'lax' as const, overwrite: true, path: '/' };

/** Setup attempts per client address, counted before anything else is read. */
function setupLimited(limit: RateLimiter): Middleware {
  return async (ctx, next) => {
    const allowed = await limit.consume(ctx.state.clientIp);
    if (!allowed.allowed) throw new TooMany(allowed.retryAfterSeconds, 'Too many setup attempts: try again later');
    await next();
  };
}

export const authRoutes = [
  route({
    method: 'get',
    path: '/api/auth/options',
    tag: AUTH,
    access: 'public',
    summary: 'Whether setup is due and whether mail works (the sign-in page asks first)',
    responses: { 200: { description: 'The options', schema: authOptions } },
    handler: async ({ users, mailer }) => ({
      setupNeeded: await users.setupNeeded(),
      mailEnabled: await mailer.isEnabled(),
    }),
  }),
  route({
    method: 'post',
    path: '/api/setup',
    tag: AUTH,
    access: 'public',
    summary: 'Create the first account, an ADMIN, while none exists',
    description: 'Refuses a foreign Origin. Does not sign in.',
    before: ({ setupLimit, origins }) => [setupLimited(setupLimit), foreignOriginRefused(origins)],
    body: setupBody,
    responses: {
      201: { description: 'Created', schema: setupAccount },
      409: refusalDoc('Already set up'),
    },
    handler: async ({ users }, { body, address }) => {
      const user = await users.setup(body, address);
      return { id: user.id, email: user.email, role: user.role };
    },
  }),
  route({
    method: 'get',
    path: '/api/auth/csrf',
    tag: AUTH,
    access: 'public',
    summary: "The session's CSRF token, for the X-CSRF-Token header of every write",
    description: 'Without a session any value is answered (nothing to protect, nothing stored).',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The token', schema: csrfAnswer } },
    handler: ({ sessions }, { ctx }) => {
      const sessionId = ctx.state.principal?.sessionId;
      // without a session there is nothing to protect: any value will do, and none is stored
      return { csrfToken: sessionId ? sessions.csrfToken(sessionId) : randomToken(32) };
    },
  }),
  route({
    method: 'post',
    path: '/api/auth/login',
    tag: AUTH,
    access: 'public',
    summary: 'Sign in with e-mail or username and password (then a second factor where due)',
    description:
      'Refuses a foreign Origin. Signed in: sets the session cookie (and, with `trustDevice` after a second ' +
      'factor, the trusted-device cookie). A second factor due: answers `secondFactor`; send the same body ' +
      'again with `code`.',
    before: ({ origins }) => [foreignOriginRefused(origins)],
    body: loginBody,
    responses: {
      200: { description: 'Signed in, or a second factor is due', schema: loginAnswer },
      401: refusalDoc('The identifier, password or code is not right'),
      403: refusalDoc(
        'Password sign-in is refused to this account (single sign-on only; break-glass administrators are exempt)',
      ),
      429: refusalDoc(
        'Too many failures (per account and address, per address), too many wrong codes, or more than ' +
          'three sign-ins of one account being checked at once; with Retry-After',
      ),
    },
    handler: async ({ login, sessions }, { body, ctx }) => {
      const result = await login.login(body, {
        ip: ctx.state.clientIp,
        userAgent: ctx.get('user-agent'),
        trustedDevice: ctx.cookies.get(TRUSTED_DEVICE_COOKIE, { signed: true }),
      });
      ctx.set('Cache-Control', 'no-store');
      if (result.kind === 'second-factor') return { secondFactor: result.factor };
      // a signed-in browser that signs in again drops its old session
      const previous = ctx.state.principal?.sessionId;
      if (previous) await sessions.end(previous);
      ctx.cookies.set(SESSION_COOKIE, result.sessionToken, { ...cookieOptions, maxAge: ABSOLUTE_MS });
      if (result.trustedDevice) {
        ctx.cookies.set(TRUSTED_DEVICE_COOKIE, result.trustedDevice, { ...cookieOptions, maxAge: TRUSTED_DEVICE_MS });
      }
      return { user: result.user, csrfToken: result.csrfToken };
    },
  }),
  route({
    method: 'post',
    path: '/api/auth/logout',
    tag: AUTH,
    access: 'signed-in',
    summary: 'Sign out: ends this browser session (an API token stays valid)',
    responses: { 204: { description: 'Signed out' } },
    handler: async ({ login }, { principal, actor, ctx }) => {
      if (principal.sessionId) await login.logout(actor, principal.sessionId);
      ctx.cookies.set(SESSION_COOKIE, null, cookieOptions);
    },
  }),
  route({
    method: 'get',
    path: '/api/auth/me',
    tag: AUTH,
    access: 'signed-in',
    summary: 'The account this request is answered as',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The account', schema: meAnswer } },
    handler: async ({ users }, { principal }) => ({ user: await users.userView(principal.userId) }),
  }),
];
