import type { Middleware } from 'koa';
import { MisdirectedRequest } from './errors.js';
import { connectedHost } from './origin.js';

/** The hosts (host[:port]) of AUTH_URL and PUBLIC_URL: the names this server answers to. */
export function expectedHosts(urls: string[]): string[] {
  const hosts: string[] = [];
  for (const url of urls) {
    try {
      const host = new URL(url).host.toLowerCase();
      if (host && !hosts.includes(host)) hosts.push(host);
    } catch {
      // unset (empty): no name to insist on
    }
  }
  return hosts;
}

/**
 * DNS rebinding: a page on attacker.example whose name re-resolves to the loopback address reaches an
 * Argus listening there with `Host: attacker.example`. A request that names another host than ours
 * (X-Forwarded-Host behind the proxy, else Host) is refused before any work with 421, unless it
 * carries a bearer credential (agent JWT, API token, CRON_SECRET: no browser sends one by itself)
 * or asks for /api/health (container health checks call 127.0.0.1). Without AUTH_URL nothing is
 * checked (development; the configuration warns).
 */
export function hostCheck(hosts: string[]): Middleware {
  const allowed = new Set(hosts);
  return async (ctx, next) => {
    if (allowed.size > 0 && ctx.path !== '/api/health' && !/^Bearer\s/i.test(ctx.get('authorization'))) {
      const named = connectedHost({ host: ctx.get('host'), forwardedHost: ctx.get('x-forwarded-host') || undefined });
      if (!allowed.has(named)) {
        throw new MisdirectedRequest(`This server answers to ${hosts[0]}, not ${named || 'no host'}: use AUTH_URL`);
      }
    }
    await next();
  };
}
