/**
 * First account, sign-in and the current account: /api/setup, /api/auth/*.
 */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { TooMany } from '../lib/errors.js';
import { refuseForeignOrigin, type OriginRule } from '../http/origin.js';
import { currentPrincipal } from '../http/route-guards.js';
import { randomToken } from '../lib/crypto.js';
import { parseInput } from '../lib/validate.js';
import type { Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { UsersService } from '../users/service.js';
import type { LoginService } from './login-service.js';
import { TRUSTED_DEVICE_MS } from '../second-factor/service.js';
import { ABSOLUTE_MS, SESSION_COOKIE, TRUSTED_DEVICE_COOKIE, type Sessions } from './sessions.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
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

export function authRoutes(deps: AuthRoutesDeps): Router {
  const { users, login, sessions, origins } = deps;
  const router = new Router();
  // `Secure` is not set here: http/cookie-transport.ts decides it for every cookie from AUTH_URL
  const cookieOptions = {
    signed: true,
    httpOnly: true,
    sameSite: 'lax' as const,
    overwrite: true,
    path: '/',
  };

  router.get('/api/auth/options', async (ctx) => {
    ctx.body = { setupNeeded: await users.setupNeeded(), mailEnabled: await deps.mailer.isEnabled() };
  });

  router.post('/api/setup', async (ctx) => {
    const limit = await deps.setupLimit.consume(ctx.state.clientIp);
    if (!limit.allowed) throw new TooMany(limit.retryAfterSeconds, 'Too many setup attempts: try again later');
    refuseForeignOrigin(ctx, origins);
    const input = parseInput(setupBody, ctx.request.body);
    const user = await users.setup(input, ctx.state.clientIp ?? null);
    ctx.status = 201;
    ctx.body = { id: user.id, email: user.email, role: user.role };
  });

  router.get('/api/auth/csrf', (ctx) => {
    const sessionId = ctx.state.principal?.sessionId;
    // without a session there is nothing to protect: any value will do, and none is stored
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { csrfToken: sessionId ? sessions.csrfToken(sessionId) : randomToken(32) };
  });

  router.post('/api/auth/login', async (ctx) => {
    refuseForeignOrigin(ctx, origins);
    const input = parseInput(loginBody, ctx.request.body);
    const result = await login.login(input, {
      ip: ctx.state.clientIp,
      userAgent: ctx.get('user-agent'),
      trustedDevice: ctx.cookies.get(TRUSTED_DEVICE_COOKIE, { signed: true }),
    });
    ctx.set('Cache-Control', 'no-store');
    if (result.kind === 'second-factor') {
      ctx.body = { secondFactor: result.factor };
      return;
    }
    // a signed-in browser that signs in again drops its old session
    const previous = ctx.state.principal?.sessionId;
    if (previous) await sessions.end(previous);
    ctx.cookies.set(SESSION_COOKIE, result.sessionToken, { ...cookieOptions, maxAge: ABSOLUTE_MS });
    if (result.trustedDevice) {
      ctx.cookies.set(TRUSTED_DEVICE_COOKIE, result.trustedDevice, { ...cookieOptions, maxAge: TRUSTED_DEVICE_MS });
    }
    ctx.body = { user: result.user, csrfToken: result.csrfToken };
  });

  router.post('/api/auth/logout', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    if (principal.sessionId) await login.logout(auditActor(ctx), principal.sessionId);
    ctx.cookies.set(SESSION_COOKIE, null, cookieOptions);
    ctx.status = 204;
  });

  router.get('/api/auth/me', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { user: await users.userView(principal.userId) };
  });

  return router;
}

const AUTH = 'Authentication';
/** What auth/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const authApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/auth/options',
    tag: AUTH,
    access: 'public',
    summary: 'Whether setup is due and whether mail works (the sign-in page asks first)',
    responses: { 200: { description: 'The options', schema: authOptions } },
  },
  {
    method: 'post',
    path: '/api/setup',
    tag: AUTH,
    access: 'public',
    summary: 'Create the first account, an ADMIN, while none exists',
    description: 'Refuses a foreign Origin. Does not sign in.',
    body: setupBody,
    responses: {
      201: { description: 'Created', schema: setupAccount },
      409: refusalDoc('Already set up'),
    },
  },
  {
    method: 'get',
    path: '/api/auth/csrf',
    tag: AUTH,
    access: 'public',
    summary: "The session's CSRF token, for the X-CSRF-Token header of every write",
    description: 'Without a session any value is answered (nothing to protect, nothing stored).',
    responses: { 200: { description: 'The token', schema: csrfAnswer } },
  },
  {
    method: 'post',
    path: '/api/auth/login',
    tag: AUTH,
    access: 'public',
    summary: 'Sign in with e-mail or username and password (then a second factor where due)',
    description:
      'Refuses a foreign Origin. Signed in: sets the session cookie (and, with `trustDevice` after a second ' +
      'factor, the trusted-device cookie). A second factor due: answers `secondFactor`; send the same body ' +
      'again with `code`.',
    body: loginBody,
    responses: {
      200: { description: 'Signed in, or a second factor is due', schema: loginAnswer },
      401: refusalDoc('The identifier, password or code is not right'),
      429: refusalDoc(
        'Too many failures (per account and address, per address), too many wrong codes, or more than ' +
          'three sign-ins of one account being checked at once; with Retry-After',
      ),
    },
  },
  {
    method: 'post',
    path: '/api/auth/logout',
    tag: AUTH,
    access: 'signed-in',
    summary: 'Sign out: ends this browser session (an API token stays valid)',
    responses: { 204: { description: 'Signed out' } },
  },
  {
    method: 'get',
    path: '/api/auth/me',
    tag: AUTH,
    access: 'signed-in',
    summary: 'The account this request is answered as',
    responses: { 200: { description: 'The account', schema: meAnswer } },
  },
];
