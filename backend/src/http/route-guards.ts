/**
 * Per-route rights checks. Authentication (bearer first, then the session
 * cookie) has already put the principal, if any, on ctx.state.
 */
import type { Middleware } from 'koa';
import type { Principal, Role } from '../lib/access.js';
import { Forbidden, Unauthenticated } from '../lib/errors.js';

declare module 'koa' {
  interface DefaultState {
    principal?: Principal;
    /** Why this cookie-authenticated write must be refused (CSRF, Origin, content type), if it must. */
    writeRefusal?: WriteRefusal | null;
  }
}

export interface WriteRefusal {
  message: string;
  code: string;
}

export function currentPrincipal(state: { principal?: Principal; writeRefusal?: WriteRefusal | null }): Principal {
  if (!state.principal) throw new Unauthenticated();
  if (state.writeRefusal) throw new Forbidden(state.writeRefusal.message, state.writeRefusal.code);
  return state.principal;
}

export function requireSignedIn(): Middleware {
  return async (ctx, next) => {
    currentPrincipal(ctx.state);
    await next();
  };
}

export function requireRole(...roles: Role[]): Middleware {
  return async (ctx, next) => {
    const principal = currentPrincipal(ctx.state);
    if (!roles.includes(principal.role)) throw new Forbidden('Your role does not allow this');
    await next();
  };
}

/** Token management and other console-only actions: a bearer token is refused. */
export function requireCookieSession(): Middleware {
  return async (ctx, next) => {
    const principal = currentPrincipal(ctx.state);
    if (principal.via !== 'session')
      throw new Forbidden('This action needs a signed-in browser session, not an API token');
    await next();
  };
}
