/**
 * The overview and its trend, built once by the composition root. The live snapshot shares
 * GET /api/overview's computation at open (recent.ts).
 */
import type { Knex } from 'knex';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import { shareRecentOverviews } from './recent.js';
import { createOverviewRepo } from './repo.js';
import { overviewRoutes } from './routes.js';
import { createOverviewService } from './service.js';

export function assembleOverview(deps: { db: Knex; clock: Clock }) {
  const { clock } = deps;
  const service = createOverviewService({ repo: createOverviewRepo(deps.db), clock });
  const overview = shareRecentOverviews(service.compute, { clock });
  return { overview, routes: mountRoutes(overviewRoutes, { compute: overview.compute, trend: service.trend }) };
}
