/**
 * `GET /api/metrics`: Argus's own metrics in the Prometheus text format, for a scraper.
 *
 * Who may read it: `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time), or the API
 * token of an ADMIN account. Mounted before the app's authentication, which it runs itself only
 * when the bearer is not METRICS_TOKEN: that token is no API token and must not be refused as one
 * (nor counted as a failed bearer). No credentials: 401; a session cookie (a scraper is a script,
 * and a browser has no business here) or a non-admin token: 403.
 */
import type { Middleware } from 'koa';
import { currentPrincipal } from '../http/route-guards.js';
import { safeEqual } from '../lib/crypto.js';
import { Forbidden } from '../lib/errors.js';
import type { SelfMetricsRegistry } from './registry.js';
import { routeOf } from '../http/route.js';

export const METRICS_PATH = '/api/metrics';

/** Whether the request's bearer is the configured METRICS_TOKEN (never, when none is configured). */
export function isMetricsToken(authorization: string, metricsToken: string | null): boolean {
  if (metricsToken === null) return false;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? '';
  return safeEqual(given, metricsToken);
}

export interface SelfMetricsDeps {
  metrics: Pick<SelfMetricsRegistry, 'scrape' | 'registry'>;
  metricsToken: string | null;
  authentication: Middleware;
}

/** METRICS_TOKEN, else the app's authentication and an ADMIN's API token (this route's own guard). */
function scraperOrAdminToken({ metricsToken, authentication }: SelfMetricsDeps): Middleware {
  return async (ctx, next) => {
    if (isMetricsToken(ctx.get('authorization'), metricsToken)) return next();
    return authentication(ctx, async () => {
      const principal = currentPrincipal(ctx.state);
      if (principal.via !== 'token')
        throw new Forbidden("Metrics are read with a bearer token: an ADMIN's API token or METRICS_TOKEN");
      if (principal.role !== 'ADMIN') throw new Forbidden('Your role does not allow this');
      await next();
    });
  };
}

const route = routeOf<SelfMetricsDeps>();

export const selfMetricsRoutes = [
  route({
    method: 'get',
    path: METRICS_PATH,
    tag: 'Operations',
    access: 'metrics',
    summary: "Argus's own metrics for Prometheus",
    description:
      'HTTP, ingest, group commit, evaluation, live channel, outbox, database pool and process metrics (README "Monitoring Argus itself").',
    responses: { 200: { description: 'The Prometheus text exposition format', contentType: 'text/plain' } },
    before: (deps) => [scraperOrAdminToken(deps)],
    handler: async ({ metrics }, { ctx }) => {
      const text = await metrics.scrape();
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Type', metrics.registry.contentType);
      return text;
    },
  }),
];
