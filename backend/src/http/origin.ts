/**
 * Whose pages may drive this server (docs/decisions.md "Sign-in hardening"). A browser write, sign-in,
 * setup, the password endpoints and a cookie on the live channel are accepted only when the Origin,
 * where present, is exactly AUTH_URL's origin (scheme, host and port) or one of ALLOWED_ORIGINS.
 * Comparing with the Host the request names instead let DNS rebinding through: a page whose name
 * re-resolves to 127.0.0.1 sends a matching Host and Origin. Without AUTH_URL (development only, with
 * a start-up warning) the Origin must match the host the browser connected to.
 */
import type { Middleware } from 'koa';
import { Forbidden } from '../lib/errors.js';

export interface RequestHosts {
  origin: string | undefined;
  host: string | undefined;
  forwardedHost: string | undefined;
}

/** Whether a present Origin is one of ours; an absent Origin is for the caller to decide. */
export type OriginRule = (hosts: RequestHosts) => boolean;

/** `scheme://host[:port]` as browsers send it (default ports dropped, lower case), or null. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The host the browser connected to, as the proxy tells it in X-Forwarded-Host, else Host. */
export function connectedHost({ host, forwardedHost }: Pick<RequestHosts, 'host' | 'forwardedHost'>): string {
  return (forwardedHost?.split(',')[0] ?? host ?? '').trim().toLowerCase();
}

export function createOriginRule(authUrl: string, allowedOrigins: readonly string[] = []): OriginRule {
  const ours = new Set([authUrl, ...allowedOrigins].map(originOf).filter((o): o is string => o !== null));
  return (hosts) => {
    if (hosts.origin === undefined) return true;
    // the exact text a browser sends: "null" (sandboxed frames, file:) and garbage never match
    if (ours.size > 0) return ours.has(hosts.origin.toLowerCase());
    const origin = originOf(hosts.origin);
    return origin !== null && new URL(origin).host === connectedHost(hosts);
  };
}

/** The hosts of a Koa request, as an OriginRule wants them. */
export function requestHosts(ctx: { get(field: string): string }): RequestHosts {
  return {
    origin: ctx.get('origin') || undefined,
    host: ctx.get('host'),
    forwardedHost: ctx.get('x-forwarded-host') || undefined,
  };
}

/** Sign-in, setup and the password endpoints carry no CSRF token (no session yet) but refuse a foreign Origin. */
export function refuseForeignOrigin(ctx: { get(field: string): string }, origins: OriginRule): void {
  if (!origins(requestHosts(ctx))) throw new Forbidden('Cross-origin request refused', 'foreign_origin');
}

/** `refuseForeignOrigin` in front of a route (http/route.ts `before`). */
export function foreignOriginRefused(origins: OriginRule): Middleware {
  return async (ctx, next) => {
    refuseForeignOrigin(ctx, origins);
    await next();
  };
}
