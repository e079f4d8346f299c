/**
 * Who is asking (docs/protocol.md "Authentication"): a bearer token is checked BEFORE
 * the cookie, and a request carrying one is answered as that token even when a
 * cookie is present. A bad token is 401 whatever the cookie says. The bearer
 * path is rate-limited per client address on failures (answered 401, as
 * docs/limits.md "Rate limits" says); a success clears that address's counter. Cookie-authenticated
 * writes need the CSRF header, a JSON or form body and none but our Origin.
 */
import type { Context, Middleware } from 'koa';
import { Unauthenticated } from '../lib/errors.js';
import type { WriteRefusal } from '../http/route-guards.js';
import { requestHosts, type OriginRule } from '../http/origin.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { TokensService } from '../tokens/service.js';
import type { UsersService } from '../users/service.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AuthenticateDeps {
  sessions: Sessions;
  tokens: TokensService;
  users: UsersService;
  bearerFailures: RateLimiter;
  origins: OriginRule;
}

function cookieWriteProblem(
  ctx: Context,
  sessionId: string,
  sessions: Sessions,
  origins: OriginRule,
): WriteRefusal | null {
  if (!origins(requestHosts(ctx))) return { message: 'Cross-origin request refused', code: 'foreign_origin' };
  if (!sessions.csrfMatches(sessionId, ctx.get('x-csrf-token') || undefined)) {
    return { message: 'Missing or invalid CSRF token', code: 'csrf_failed' };
  }
  if (ctx.request.length && !ctx.is('application/json', 'application/x-www-form-urlencoded')) {
    return { message: 'Send JSON or a form', code: 'unsupported_content_type' };
  }
  return null;
}

export function authenticate({ sessions, tokens, users, bearerFailures, origins }: AuthenticateDeps): Middleware {
  return async (ctx, next) => {
    const authorization = ctx.get('authorization');
    if (authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      const address = ctx.state.clientIp;
      const failures = await bearerFailures.peek(address);
      if (!failures.allowed) throw new Unauthenticated();
      const verified = match?.[1] ? await tokens.verify(match[1]) : null;
      const principal = verified
        ? await users.principalFor(verified.userId, 'token', { sessionId: null, tokenId: verified.tokenId })
        : null;
      if (!principal) {
        await bearerFailures.consume(address);
        throw new Unauthenticated();
      }
      if (failures.consumed > 0) await bearerFailures.reset(address);
      // docs/protocol.md "API tokens": a viewer's token is refused every write
      if (principal.role === 'VIEWER' && !SAFE_METHODS.has(ctx.method)) {
        ctx.state.writeRefusal = { message: "A viewer's token cannot change anything", code: 'forbidden' };
      }
      ctx.state.principal = principal;
      return next();
    }

    const token = ctx.cookies.get(SESSION_COOKIE, { signed: true });
    const session = token ? await sessions.resolve(token) : null;
    if (session) {
      const principal = await users.principalFor(session.userId, 'session', { sessionId: session.id, tokenId: null });
      if (principal) {
        // checked where the principal is used (route guards), so public writes such as sign-in
        // do not need a token just because an old session cookie is still around
        if (!SAFE_METHODS.has(ctx.method))
          ctx.state.writeRefusal = cookieWriteProblem(ctx, session.id, sessions, origins);
        ctx.state.principal = principal;
      }
    }
    return next();
  };
}
