/**
 * GET /api/metrics, built once by the composition root. A scraper's bearer may be METRICS_TOKEN, no
 * API token: the route runs the app's authentication itself, so it is mounted before it.
 */
import { mountRoutes } from '../http/route.js';
import { selfMetricsRoutes, type SelfMetricsDeps } from './routes.js';

export function assembleSelfMetrics(deps: SelfMetricsDeps) {
  return { routes: mountRoutes(selfMetricsRoutes, deps) };
}
