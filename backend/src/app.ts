/**
 * The composition root: the HTTP pipeline. Mounts, behind the middleware and in order, what
 * features.ts builds from `AppDeps` (one assembly per feature). Only main.ts and tests import it;
 * nothing here is imported by a feature.
 */
import Koa from 'koa';
import type { LiveOptions } from './live/assembly.js';
import type { LiveHub } from './live/hub.js';
import { API_VERSION, buildOpenApi } from './http/openapi.js';
import { openApiRoutes } from './http/openapi-route.js';
import { declaredRoutes, mountRoutes } from './http/route.js';
import { parseBodies } from './http/body.js';
import { clientAddress } from './http/client-ip.js';
import { errorMiddleware } from './http/error-middleware.js';
import { NotFound } from './lib/errors.js';
import { securityHeaders } from './http/security-headers.js';
import { cookieTransport } from './http/cookie-transport.js';
import { expectedHosts, hostCheck } from './http/host-check.js';
import { createOriginRule } from './http/origin.js';
import { requestLog } from './http/request-log.js';
import { serveConsole } from './http/static.js';
import { httpMetrics } from './self-metrics/http-metrics.js';
import { createSelfMetrics } from './self-metrics/registry.js';
import { features, type AppDeps } from './features.js';
import type { Housekeeping } from './housekeeping/service.js';
import type { KeyCheckStatus } from './secrets/key-check.js';

export type { AppDeps } from './features.js';

export interface AppAssembly {
  app: Koa;
  /** Waits for background work of the features (mails being sent) before the pool closes. */
  shutdown(): Promise<void>;
  /** Builds the `/api/live` hub on the same services (main.ts attaches it to the HTTP server). */
  live(options?: LiveOptions): LiveHub;
  /** The hourly housekeeping, on the app's own audit and alert retention services (main.ts runs it). */
  housekeeping: Housekeeping;
  /** The network checks run from the server (main.ts starts it). */
  checkRunner: { start(): void };
  /** The start-up check of the key that seals stored secrets (main.ts runs it before anything starts). */
  secretsKeyCheck(): Promise<{ status: KeyCheckStatus }>;
}

export function createApp(deps: AppDeps): AppAssembly {
  // Koa's env follows the configuration, not whatever NODE_ENV the process happened to start with
  const app = new Koa({ proxy: false, env: deps.config.nodeEnv });
  app.keys = [deps.config.authSecret]; // signs the session cookie: a new AUTH_SECRET signs everybody out
  app.silent = true; // errors are logged by errorMiddleware, once

  if (deps.outermost) app.use(deps.outermost);
  // one registry per app (never prom-client's global one): two apps in one process count apart
  const selfMetrics = createSelfMetrics({ db: deps.db, log: deps.log });
  app.use(requestLog(deps.log));
  app.use(httpMetrics(selfMetrics));
  app.use(securityHeaders());
  app.use(errorMiddleware(deps.log));
  app.use(cookieTransport(deps.config.authUrl));
  const origins = createOriginRule(deps.config.authUrl, deps.config.allowedOrigins);
  // a request for another host (DNS rebinding) is refused before any work
  app.use(hostCheck(expectedHosts([deps.config.authUrl, deps.config.publicUrl])));
  app.use(async (ctx, next) => {
    ctx.state.clientIp = clientAddress(ctx.get('x-forwarded-for') || undefined, ctx.req.socket.remoteAddress);
    await next();
  });

  const {
    health,
    agentIngest,
    cronEvaluation,
    selfMetricsRoute,
    authentication,
    routers,
    shutdown,
    liveHub,
    housekeeping,
    checkRunner,
    secretsKeyCheck,
    publicStatusPage,
  } = features(deps, origins, selfMetrics);
  // the agents' reports (~1,000 a second) first among the routers: no other router's match is run
  // for them; the webhook's path is its own, so the order changes no other route's answer
  app.use(agentIngest.routes()).use(agentIngest.allowedMethods());
  // health answers before authentication: a monitor with a stale token still sees it
  app.use(health.routes()).use(health.allowedMethods());
  let documentText: string | undefined;
  const apiDocument = mountRoutes(
    openApiRoutes,
    () => (documentText ??= JSON.stringify(buildOpenApi(declaredRoutes(app), API_VERSION))),
  );
  app.use(apiDocument.routes()).use(apiDocument.allowedMethods());

  app.use(publicStatusPage.routes()).use(publicStatusPage.allowedMethods());
  app.use(cronEvaluation.routes()).use(cronEvaluation.allowedMethods());
  app.use(selfMetricsRoute.routes()).use(selfMetricsRoute.allowedMethods());
  app.use(parseBodies());
  app.use(authentication);
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());

  app.use(serveConsole(deps.config.staticDir));
  app.use((ctx) => {
    if (ctx.path.startsWith('/api/') || ctx.path === '/api')
      throw new NotFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
    ctx.status = 404;
    ctx.body = 'Not found';
  });
  const live = (options?: LiveOptions) => liveHub(app, options);
  return { app, shutdown, live, housekeeping, checkRunner, secretsKeyCheck };
}
