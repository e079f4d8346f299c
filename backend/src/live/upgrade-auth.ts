/**
 * Who opens `/api/live` (docs/protocol.md "Live channel"): the app's
 * own authentication middleware runs on a Koa context built
 * from the upgrade request, so bearer-first, the bearer failure limit, signed
 * session cookies and rights read from the database are exactly as on HTTP.
 * Then the Origin rule: a cookie needs our Origin (the host the browser
 * connected to, X-Forwarded-Host aware, or AUTH_URL's host); a bearer token
 * may come without one (scripts) but never with a foreign one.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Principal } from '../lib/access.js';
import { clientAddress } from '../http/client-ip.js';
import { requestHosts, type OriginRule } from '../http/origin.js';

export interface UpgradeAuthDeps {
  app: Koa;
  authentication: Koa.Middleware;
  origins: OriginRule;
}

export function createUpgradeAuth({ app, authentication, origins }: UpgradeAuthDeps) {
  return async function authenticateUpgrade(req: IncomingMessage): Promise<Principal | null> {
    const ctx = app.createContext(req, new ServerResponse(req));
    ctx.state.clientIp = clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress);
    try {
      await authentication(ctx, async () => undefined);
    } catch {
      return null; // a bad or rate-limited bearer token: 401 like on HTTP
    }
    const principal = ctx.state.principal;
    if (!principal) return null;
    const hosts = requestHosts(ctx);
    // a browser always sends Origin on a WebSocket: a cookie without one is not a page of ours
    if (principal.via === 'session' && hosts.origin === undefined) return null;
    return origins(hosts) ? principal : null;
  };
}
