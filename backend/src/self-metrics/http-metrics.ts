/**
 * Counts and times every HTTP request for `argus_http_requests_total` and
 * `argus_http_request_duration_seconds`. Labels stay bounded: the route is the router's pattern
 * (`/api/systems/:id`), never the path; console files and unknown paths are all `unmatched`; an
 * unusual method is `OTHER`. The live WebSocket upgrade is not a Koa request and is not counted here.
 */
import type { Middleware } from 'koa';
import type { SelfMetricsRegistry } from './registry.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function httpMetrics(metrics: Pick<SelfMetricsRegistry, 'httpRequest'>): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // set by @koa/router on the request it routed
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === 'string' ? matched : 'unmatched';
      const method = METHODS.has(ctx.method) ? ctx.method : 'OTHER';
      metrics.httpRequest(method, route, ctx.status, (performance.now() - started) / 1000);
    }
  };
}
