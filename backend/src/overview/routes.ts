/**
 * /api/overview: the console's home page, within the customers the account may see. The live
 * snapshot `overview` pushes the same answer (live/assembly.ts). A read: no audit row.
 */
import { fleetTrend, overview } from '../../../contracts/overview.js';
import { routeOf } from '../http/route.js';
import { visibleTo } from '../lib/access.js';
import type { OverviewService } from './service.js';

const route = routeOf<Pick<OverviewService, 'compute' | 'trend'>>();
const tag = 'Overview';
const noStore = { 'Cache-Control': 'no-store' };

export const overviewRoutes = [
  route({
    method: 'get',
    path: '/api/overview',
    tag,
    access: 'signed-in',
    summary:
      'The fleet at a glance: per customer the systems by status, open alerts by severity, systems in maintenance and the worst offenders of the last 24 hours; fleet totals; open incidents',
    headers: noStore,
    responses: { 200: { description: 'The overview of the customers the caller may see', schema: overview } },
    handler: (service, { principal }) => service.compute(visibleTo(principal)),
  }),
  route({
    method: 'get',
    path: '/api/overview/trend',
    tag,
    access: 'signed-in',
    summary:
      'The fleet over the last 24 hours, a point an hour (the last one now): systems with an offline alert open and alerts open',
    headers: noStore,
    responses: { 200: { description: 'The trend of the customers the caller may see', schema: fleetTrend } },
    handler: (service, { principal }) => service.trend(visibleTo(principal)),
  }),
];
