/** /api/systems: list, detail, edit, delete, re-enroll (ADMIN) and chart data. */
import { z } from 'zod';
import {
  chartBatch,
  chartData,
  MAX_BATCH_SERIES,
  metricsBatchQuery,
  metricsQuery,
  scriptCheckList,
  containerImageList,
  seriesList,
  system,
  systemDetail,
  systemsPage,
  systemsPageQuery,
  systemsQuery,
  updateSystemBody,
} from '../../../contracts/systems.js';
import { idParam, routeOf } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import type { SystemsListing } from './listing.js';
import type { SystemsService } from './service.js';

export interface SystemsDeps {
  systems: SystemsService;
  listing: SystemsListing;
  clock: Clock;
}

const route = routeOf<SystemsDeps>();
const tag = 'Systems';
const systemId = { id: idParam('system') };

/** The window of a chart request: `to` defaults to now, `from` to an hour before `to`. */
function chartWindow(clock: Clock, q: { from?: string | undefined; to?: string | undefined }) {
  const to = q.to ? new Date(q.to) : clock.now();
  return { from: q.from ? new Date(q.from) : new Date(to.getTime() - 3_600_000), to };
}

export const systemsRoutes = [
  route({
    method: 'get',
    path: '/api/systems',
    tag,
    access: 'signed-in',
    summary: 'List the systems the account may see',
    description:
      'Every visible system, sorted by customer, cluster and name; the filters and sort of /api/systems/page ' +
      'apply when given. For large fleets use /api/systems/page.',
    query: systemsQuery,
    responses: { 200: { description: 'The systems with their status and open alerts', schema: z.array(system) } },
    handler: ({ listing }, { principal, query }) => listing.query(principal, query),
  }),
  // before /:id, which would take "page" for an id
  route({
    method: 'get',
    path: '/api/systems/page',
    tag,
    access: 'signed-in',
    summary: 'One page of the systems the account may see: filtered, sorted and paged on the server',
    description:
      'Up to `limit` (default 100, at most 500) systems with `nextCursor` (pass it as `cursor`, with the same ' +
      'filters and sort, for the next page; null on the last), `total` (matching systems over all pages) and ' +
      '`counts` (matching systems per status, the status filter left out). Keyset paging: rows added or removed ' +
      'meanwhile neither repeat nor skip rows.',
    query: systemsPageQuery,
    responses: { 200: { description: 'One page', schema: systemsPage } },
    handler: ({ listing }, { principal, query }) => listing.query(principal, query),
  }),
  route({
    method: 'get',
    path: '/api/systems/:id',
    tag,
    access: 'signed-in',
    summary: 'One system in detail',
    params: systemId,
    responses: { 200: { description: 'The system', schema: systemDetail } },
    handler: ({ systems }, { principal, params }) => systems.get(principal, params.id),
  }),
  // the service checks the grant on the system's customer: 404 unseen, 403 read-only
  route({
    method: 'patch',
    path: '/api/systems/:id',
    tag,
    access: 'customer-writer',
    summary: 'Rename a system, move it to another customer or cluster, switch its offline alerts',
    params: systemId,
    body: updateSystemBody,
    responses: { 200: { description: 'Changed', schema: systemDetail } },
    handler: ({ systems }, { actor, principal, params, body }) => systems.update(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/systems/:id',
    tag,
    access: 'customer-writer',
    summary: 'Delete a system with its history',
    params: systemId,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ systems }, { actor, principal, params }) => {
      await systems.remove(actor, principal, params.id);
    },
  }),
  route({
    method: 'post',
    path: '/api/systems/:id/re-enroll',
    tag,
    access: 'admin',
    summary: "Forget a system's agent key: its next report must enrol again",
    params: systemId,
    responses: { 204: { description: 'Done' } },
    handler: async ({ systems }, { actor, principal, params }) => {
      await systems.reEnroll(actor, principal, params.id);
    },
  }),
  route({
    method: 'get',
    path: '/api/systems/:id/series',
    tag,
    access: 'signed-in',
    summary: 'The series a system reported in the last day',
    params: systemId,
    responses: { 200: { description: 'Metric names and instances', schema: seriesList } },
    handler: ({ systems }, { principal, params }) => systems.series(principal, params.id),
  }),
  route({
    method: 'get',
    path: '/api/systems/:id/script-checks',
    tag,
    access: 'signed-in',
    summary: "A system's script checks: state, message and last run of each, as its agent last reported them",
    params: systemId,
    responses: { 200: { description: 'The checks, by name', schema: scriptCheckList } },
    handler: ({ systems }, { principal, params }) => systems.scriptChecks(principal, params.id),
  }),
  route({
    method: 'get',
    path: '/api/systems/:id/container-images',
    tag,
    access: 'signed-in',
    summary: "The image each of a system's containers runs, as its agent last listed them",
    params: systemId,
    responses: { 200: { description: 'The containers, by name', schema: containerImageList } },
    handler: ({ systems }, { principal, params }) => systems.containerImages(principal, params.id),
  }),
  route({
    method: 'get',
    path: '/api/systems/:id/metrics',
    tag,
    access: 'signed-in',
    summary: 'Chart data of one series',
    description:
      'Raw rows up to 2 days, 5-minute rollups up to 30 days, hourly rollups up to 400 days (when TimescaleDB is there).',
    params: systemId,
    query: metricsQuery,
    responses: { 200: { description: 'Buckets of the range', schema: chartData } },
    handler: ({ systems, clock }, { principal, params, query }) =>
      systems.metrics(principal, {
        systemId: params.id,
        name: query.name,
        instance: query.instance,
        ...chartWindow(clock, query),
      }),
  }),
  route({
    method: 'get',
    path: '/api/systems/:id/metrics/batch',
    tag,
    access: 'signed-in',
    summary: 'Chart data of several series of one system in one request',
    description:
      `Repeat \`series\` once per series: the metric name, then \`|\` and the instance when it has one ` +
      `(\`?series=cpu.usage_pct&series=disk.used_pct|/var\`); 1 to ${MAX_BATCH_SERIES} series, duplicates answered once. ` +
      'One source and bucket width for all (as /api/systems/:id/metrics picks them); a series without samples ' +
      'in the window has no points.',
    params: systemId,
    query: metricsBatchQuery,
    responses: { 200: { description: 'The points of each series, in the order asked', schema: chartBatch } },
    handler: ({ systems, clock }, { principal, params, query }) =>
      systems.metricsBatch(principal, { systemId: params.id, series: query.series, ...chartWindow(clock, query) }),
  }),
];
