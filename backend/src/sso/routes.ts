/**
 * Single sign-on: /api/auth/sso (the button), /api/auth/sso/start and /api/auth/sso/callback (the
 * browser's round trip through the provider), /api/settings/sso (administrators).
 */
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import { DomainError, TooMany } from '../lib/errors.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { ABSOLUTE_MS, SESSION_COOKIE, type Sessions } from '../auth/sessions.js';
import { SIGN_IN_WINDOW_MS, type SsoService } from './service.js';
import { SsoRefused } from './provider.js';
import {
  groupMappingsBody,
  localSignInBody,
  ssoCallbackQuery,
  ssoOptions,
  ssoSettings,
  ssoSignOut,
  ssoStartQuery,
  ssoTest,
} from '../../../contracts/sso.js';

/** The browser's half of a sign-in under way: the `state` it must bring back from the provider. */
export const SSO_STATE_COOKIE = 'argus.sso';
/** Where a refused sign-in lands: the sign-in page shows the message. */
export const SIGN_IN_PAGE = '/login';

export interface SsoRoutesDeps {
  sso: SsoService;
  sessions: Pick<Sessions, 'end'>;
  /** Starts and callbacks per client address. */
  limit: RateLimiter;
}

// `Secure` is not set here: http/cookie-transport.ts decides it for every cookie from AUTH_URL
const COOKIE = { signed: true, httpOnly: true, overwrite: true, path: '/' } as const;

function redirect(ctx: Context, location: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
  ctx.body = '';
}

/** Starts and callbacks per client address, counted before the query is read. */
function limited(limit: RateLimiter): Middleware {
  return async (ctx, next) => {
    const result = await limit.consume(ctx.state.clientIp);
    if (!result.allowed)
      throw new TooMany(result.retryAfterSeconds, 'Too many single sign-on attempts: try again later');
    await next();
  };
}

const route = routeOf<SsoRoutesDeps>();
const AUTH = 'Authentication';
const SETTINGS = 'Settings';

export const ssoRoutes = [
  route({
    method: 'get',
    path: '/api/auth/sso',
    tag: AUTH,
    access: 'public',
    summary: 'Whether single sign-on is configured, and the name its button shows',
    responses: { 200: { description: 'The button', schema: ssoOptions } },
    handler: ({ sso }) => sso.options(),
  }),
  route({
    method: 'get',
    path: '/api/auth/sso/start',
    tag: AUTH,
    access: 'public',
    summary: "Start a single sign-on: redirects the browser to the identity provider's sign-in",
    description:
      'Sets a short-lived cookie holding the `state` the provider must send back. `returnTo`: a path on ' +
      'this site to land on afterwards (anything else is refused).',
    before: ({ limit }) => [limited(limit)],
    query: ssoStartQuery,
    responses: {
      302: { description: "To the provider's authorization endpoint" },
      400: refusalDoc('`returnTo` is not a path on this site'),
      404: refusalDoc('Single sign-on is not configured'),
      429: refusalDoc('Too many attempts from this address; with Retry-After'),
      503: refusalDoc('The identity provider cannot be reached'),
    },
    handler: async ({ sso }, { query, ctx }) => {
      const { location, state } = await sso.begin(query.returnTo);
      // Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies
      ctx.cookies.set(SSO_STATE_COOKIE, state, { ...COOKIE, sameSite: 'lax', maxAge: SIGN_IN_WINDOW_MS });
      redirect(ctx, location);
    },
  }),
  route({
    method: 'get',
    path: '/api/auth/sso/callback',
    tag: AUTH,
    access: 'public',
    summary: 'Where the identity provider sends the browser back: signs in and redirects',
    description:
      'Checks `state` against the browser’s cookie (once only), trades the code with the PKCE verifier, ' +
      'verifies the ID token (signature, issuer, audience, expiry, nonce), applies the group mapping and ' +
      'sets the same session cookie a local sign-in sets. A refusal redirects to the sign-in page with ' +
      '`ssoError` naming the reason.',
    before: ({ limit }) => [limited(limit)],
    query: ssoCallbackQuery,
    responses: {
      302: { description: 'Signed in: to `returnTo`; refused: to the sign-in page with `ssoError`' },
      400: refusalDoc('A query parameter is malformed'),
      404: refusalDoc('Single sign-on is not configured'),
      429: refusalDoc('Too many attempts from this address; with Retry-After'),
    },
    handler: ({ sso, sessions }, { query, ctx }) => callback(sso, sessions, query, ctx),
  }),
  route({
    method: 'post',
    path: '/api/auth/sso/logout',
    tag: AUTH,
    access: 'browser-session',
    summary: "Sign out of Argus and get the provider's sign-out page (RP-initiated logout)",
    description:
      'Ends this browser session as `POST /api/auth/logout` does. `redirect`: for an account linked to the ' +
      "provider, the provider's end-session URL (send the browser there to end the provider's session too, " +
      'then back to /login); null otherwise or when the provider offers none.',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'Signed out of Argus', schema: ssoSignOut } },
    handler: async ({ sso }, { principal, actor, ctx }) => {
      const redirect = principal.sessionId ? await sso.signOut(actor, principal.sessionId) : null;
      ctx.cookies.set(SESSION_COOKIE, null, COOKIE);
      return { redirect };
    },
  }),
  route({
    method: 'get',
    path: '/api/settings/sso',
    tag: SETTINGS,
    access: 'admin',
    summary: 'The single sign-on configuration (without the client secret) and the group mapping',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The settings', schema: ssoSettings } },
    handler: ({ sso }) => sso.settings(),
  }),
  route({
    method: 'put',
    path: '/api/settings/sso/group-mappings',
    tag: SETTINGS,
    access: 'admin',
    summary: 'Replace the group mapping: provider group → role and customers',
    description:
      'Applies at once to every linked account, from the groups of its last sign-in. Refused when no ' +
      'administrator could sign in afterwards.',
    body: groupMappingsBody,
    responses: {
      200: { description: 'The settings with the saved mapping', schema: ssoSettings },
      409: refusalDoc('No administrator could sign in with this mapping, or OIDC_GROUP_MAP sets the mapping'),
    },
    handler: async ({ sso }, { body, actor }) => {
      await sso.replaceMappings(actor, body.mappings);
      return sso.settings();
    },
  }),
  route({
    method: 'get',
    path: '/api/settings/sso/test/start',
    tag: SETTINGS,
    access: 'admin',
    summary: 'Start a test sign-in: the provider asks who signs in, and nobody is signed in afterwards',
    description:
      'Redirects the browser to the provider (asking for a sign-in whatever its session there); the callback ' +
      'keeps the claims received and what the mapping makes of them for this administrator, then returns to ' +
      'Settings → Single sign-on. Needs this browser session at the callback.',
    before: ({ limit }) => [limited(limit)],
    responses: {
      302: { description: "To the provider's authorization endpoint" },
      404: refusalDoc('Single sign-on is not configured'),
      429: refusalDoc('Too many attempts from this address; with Retry-After'),
      503: refusalDoc('The identity provider cannot be reached'),
    },
    handler: async ({ sso }, { principal, ctx }) => {
      const { location, state } = await sso.begin(undefined, principal.userId);
      ctx.cookies.set(SSO_STATE_COOKIE, state, { ...COOKIE, sameSite: 'lax', maxAge: SIGN_IN_WINDOW_MS });
      redirect(ctx, location);
    },
  }),
  route({
    method: 'get',
    path: '/api/settings/sso/test',
    tag: SETTINGS,
    access: 'admin',
    summary: "This administrator's latest test sign-in: the claims received (no token) and the rights they map to",
    description: 'Kept ten minutes; `result` null when there is none.',
    headers: { 'Cache-Control': 'no-store' },
    responses: { 200: { description: 'The latest test', schema: ssoTest } },
    handler: ({ sso }, { principal }) => ({ result: sso.testResult(principal.userId) }),
  }),
  route({
    method: 'put',
    path: '/api/settings/sso/local-sign-in',
    tag: SETTINGS,
    access: 'admin',
    summary: 'Refuse password sign-in to all but break-glass administrators, or allow it again',
    description:
      'Break-glass administrators (the first one, from /setup, and those marked so under Users) can always ' +
      'sign in with their password, even when the identity provider is down. Turning it on ends the open ' +
      'password sessions of everyone else; sessions opened through the provider stay.',
    body: localSignInBody,
    responses: {
      200: { description: 'The settings', schema: ssoSettings },
      400: refusalDoc('Single sign-on is not configured'),
      409: refusalDoc('No enabled administrator with a password is break-glass'),
    },
    handler: async ({ sso }, { body, actor }) => {
      await sso.setLocalSignIn(actor, body.restricted);
      return sso.settings();
    },
  }),
];

async function callback(
  sso: SsoService,
  sessions: SsoRoutesDeps['sessions'],
  query: z.infer<typeof ssoCallbackQuery>,
  ctx: Context,
): Promise<void> {
  const browserState = ctx.cookies.get(SSO_STATE_COOKIE, { signed: true });
  ctx.cookies.set(SSO_STATE_COOKIE, null, COOKIE);
  try {
    const principal = ctx.state.principal;
    const result = await sso.complete(
      { state: query.state, browserState, code: query.code, error: query.error },
      { ip: ctx.state.clientIp, userAgent: ctx.get('user-agent') },
      principal?.sessionId ? principal.userId : null,
    );
    // a test sign-in changes no session: back to the settings page, which shows what came
    if (result.kind === 'test') return redirect(ctx, result.returnTo);
    // a signed-in browser that signs in again drops its old session, as a local sign-in does
    const previous = ctx.state.principal?.sessionId;
    if (previous) await sessions.end(previous);
    ctx.cookies.set(SESSION_COOKIE, result.sessionToken, { ...COOKIE, sameSite: 'lax', maxAge: ABSOLUTE_MS });
    redirect(ctx, result.returnTo);
  } catch (error) {
    // a browser arrives here, not a script: the sign-in page says what went wrong
    if (!(error instanceof SsoRefused) && !(error instanceof DomainError && error.kind === 'unavailable')) throw error;
    const params = new URLSearchParams({ ssoError: (error as DomainError).message });
    redirect(ctx, `${SIGN_IN_PAGE}?${params.toString()}`);
  }
}
