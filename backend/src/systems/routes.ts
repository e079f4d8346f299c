/** /api/systems: list, detail, edit, delete, re-enroll (ADMIN) and chart data. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { z } from 'zod';
import {
  chartBatch,
  chartData,
  MAX_BATCH_SERIES,
  metricsBatchQuery,
  metricsQuery,
  seriesList,
  system,
  systemDetail,
  systemsPage,
  systemsPageQuery,
  systemsQuery,
  updateSystemBody as updateSchema,
} from '../../../contracts/systems.js';
import { idOf } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import type { Clock } from '../lib/clock.js';
import { parseInput } from '../lib/validate.js';
import type { SystemsService } from './service.js';
import type { SystemsListing } from './listing.js';
import type { RouteDoc } from '../http/openapi.js';

export function systemsRoutes(systems: SystemsService, clock: Clock, listing: SystemsListing): Router {
  const router = new Router();

  router.get('/api/systems', async (ctx) => {
    ctx.body = await listing.query(currentPrincipal(ctx.state), parseInput(systemsQuery, ctx.query));
  });
  // before /:id, which would take "page" for an id
  router.get('/api/systems/page', async (ctx) => {
    ctx.body = await listing.query(currentPrincipal(ctx.state), parseInput(systemsPageQuery, ctx.query));
  });
  router.get('/api/systems/:id', async (ctx) => {
    ctx.body = await systems.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
  });
  router.patch('/api/systems/:id', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(updateSchema, ctx.request.body);
    ctx.body = await systems.update(auditActor(ctx), principal, idOf(ctx.params['id'], 'system'), input);
  });
  router.delete('/api/systems/:id', async (ctx) => {
    await systems.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
    ctx.status = 204;
  });
  router.post('/api/systems/:id/re-enroll', requireRole('ADMIN'), async (ctx) => {
    await systems.reEnroll(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
    ctx.status = 204;
  });
  router.get('/api/systems/:id/series', async (ctx) => {
    ctx.body = await systems.series(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'system'));
  });
  // the window of a chart request: `to` defaults to now, `from` to an hour before `to`
  const chartWindow = (q: { from?: string | undefined; to?: string | undefined }) => {
    const to = q.to ? new Date(q.to) : clock.now();
    return { from: q.from ? new Date(q.from) : new Date(to.getTime() - 3_600_000), to };
  };
  router.get('/api/systems/:id/metrics', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(metricsQuery, ctx.query);
    ctx.body = await systems.metrics(principal, {
      systemId: idOf(ctx.params['id'], 'system'),
      name: q.name,
      instance: q.instance,
      ...chartWindow(q),
    });
  });
  router.get('/api/systems/:id/metrics/batch', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(metricsBatchQuery, ctx.query);
    ctx.body = await systems.metricsBatch(principal, {
      systemId: idOf(ctx.params['id'], 'system'),
      series: q.series,
      ...chartWindow(q),
    });
  });
  return router;
}

/** What systems/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const SYSTEMS = 'Systems';
export const systemsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/systems',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'List the systems the account may see',
    description:
      'Every visible system, sorted by customer, cluster and name; the filters and sort of /api/systems/page ' +
      'apply when given. For large fleets use /api/systems/page.',
    query: systemsQuery,
    responses: { 200: { description: 'The systems with their status and open alerts', schema: z.array(system) } },
  },
  {
    method: 'get',
    path: '/api/systems/page',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'One page of the systems the account may see: filtered, sorted and paged on the server',
    description:
      'Up to `limit` (default 100, at most 500) systems with `nextCursor` (pass it as `cursor`, with the same ' +
      'filters and sort, for the next page; null on the last), `total` (matching systems over all pages) and ' +
      '`counts` (matching systems per status, the status filter left out). Keyset paging: rows added or removed ' +
      'meanwhile neither repeat nor skip rows.',
    query: systemsPageQuery,
    responses: { 200: { description: 'One page', schema: systemsPage } },
  },
  {
    method: 'get',
    path: '/api/systems/:id',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'One system in detail',
    responses: { 200: { description: 'The system', schema: systemDetail } },
  },
  {
    method: 'patch',
    path: '/api/systems/:id',
    tag: SYSTEMS,
    access: 'admin-or-operator',
    summary: 'Rename a system, move it to another customer or cluster, switch its offline alerts',
    body: updateSchema,
    responses: { 200: { description: 'Changed', schema: systemDetail } },
  },
  {
    method: 'delete',
    path: '/api/systems/:id',
    tag: SYSTEMS,
    access: 'admin-or-operator',
    summary: 'Delete a system with its history',
    responses: { 204: { description: 'Deleted' } },
  },
  {
    method: 'post',
    path: '/api/systems/:id/re-enroll',
    tag: SYSTEMS,
    access: 'admin',
    summary: "Forget a system's agent key: its next report must enrol again",
    responses: { 204: { description: 'Done' } },
  },
  {
    method: 'get',
    path: '/api/systems/:id/series',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'The series a system reported in the last day',
    responses: { 200: { description: 'Metric names and instances', schema: seriesList } },
  },
  {
    method: 'get',
    path: '/api/systems/:id/metrics',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'Chart data of one series',
    description:
      'Raw rows up to 2 days, 5-minute rollups up to 30 days, hourly rollups up to 400 days (when TimescaleDB is there).',
    query: metricsQuery,
    responses: { 200: { description: 'Buckets of the range', schema: chartData } },
  },
  {
    method: 'get',
    path: '/api/systems/:id/metrics/batch',
    tag: SYSTEMS,
    access: 'signed-in',
    summary: 'Chart data of several series of one system in one request',
    description:
      `Repeat \`series\` once per series: the metric name, then \`|\` and the instance when it has one ` +
      `(\`?series=cpu.usage_pct&series=disk.used_pct|/var\`); 1 to ${MAX_BATCH_SERIES} series, duplicates answered once. ` +
      'One source and bucket width for all (as /api/systems/:id/metrics picks them); a series without samples ' +
      'in the window has no points.',
    query: metricsBatchQuery,
    responses: { 200: { description: 'The points of each series, in the order asked', schema: chartBatch } },
  },
];
