/**
 * The Origin rule (contracts.md): a browser write (and later the live
 * channel) is accepted from the host the browser connected to — as the proxy
 * tells it in X-Forwarded-Host, else Host — or from AUTH_URL's host.
 */
import { Forbidden } from './errors.js';

export interface RequestHosts {
  origin: string | undefined;
  host: string | undefined;
  forwardedHost: string | undefined;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether a present Origin is one of ours; an absent Origin is for the caller to decide. */
export function originIsOurs({ origin, host, forwardedHost }: RequestHosts, authUrl: string): boolean {
  if (origin === undefined) return true;
  const originHost = hostOf(origin);
  if (!originHost) return false; // "null" (sandboxed frames, file:) and garbage are foreign
  const connected = (forwardedHost?.split(',')[0] ?? host ?? '').trim().toLowerCase();
  const allowed = [connected, authUrl ? hostOf(authUrl) : null].filter((h): h is string => Boolean(h));
  return allowed.includes(originHost);
}

/** The hosts of a Koa request, as originIsOurs wants them. */
export function requestHosts(ctx: { get(field: string): string }): RequestHosts {
  return {
    origin: ctx.get('origin') || undefined,
    host: ctx.get('host'),
    forwardedHost: ctx.get('x-forwarded-host') || undefined,
  };
}

/** Sign-in, setup and the password endpoints carry no CSRF token (no session yet) but refuse a foreign Origin. */
export function refuseForeignOrigin(ctx: { get(field: string): string }, authUrl: string): void {
  if (!originIsOurs(requestHosts(ctx), authUrl)) throw new Forbidden('Cross-origin request refused', 'foreign_origin');
}
