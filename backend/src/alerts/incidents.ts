/**
 * /api/incidents: cluster incidents ("Site down: <cluster>", issue 13) with their member alerts, for
 * every account that may see the customer (the evaluation run opens and resolves them).
 */
import Router from '@koa/router';
import { z } from 'zod';
import { currentPrincipal } from '../http/route-guards.js';
import { canSeeCustomer, visibleTo } from '../lib/access.js';
import { NotFound } from '../lib/errors.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import type { IncidentRow, IncidentsRepo } from './incidents-repo.js';
import type { RouteDoc } from '../http/openapi.js';
import { incident, incidentsQuery } from '../../../contracts/alerts.js';

const incidentView = (row: IncidentRow) => ({
  ...row,
  startedAt: row.startedAt.toISOString(),
  resolvedAt: row.resolvedAt?.toISOString() ?? null,
});

export function incidentsRoutes(repo: IncidentsRepo): Router {
  const router = new Router();
  router.get('/api/incidents', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const q = parseInput(incidentsQuery, ctx.query);
    const rows = await repo.list({
      visible: visibleTo(principal),
      state: q.state,
      customerId: q.customer,
      limit: q.limit,
    });
    ctx.body = rows.map(incidentView);
  });
  router.get('/api/incidents/:id', async (ctx) => {
    // who asks first: an anonymous request is a 401 whether or not the incident exists
    const principal = currentPrincipal(ctx.state);
    const row = await repo.find(idOf(ctx.params['id'], 'incident', Number.MAX_SAFE_INTEGER));
    if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such incident');
    ctx.body = incidentView(row);
  });
  return router;
}

/** What alerts/incidents.ts serves, for the OpenAPI document (http/openapi.ts). */
export const incidentsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/incidents',
    tag: 'Alerts',
    access: 'signed-in',
    summary: 'List incidents (a cluster down), newest first',
    query: incidentsQuery,
    responses: { 200: { description: 'Incidents with their member alerts', schema: z.array(incident) } },
  },
  {
    method: 'get',
    path: '/api/incidents/:id',
    tag: 'Alerts',
    access: 'signed-in',
    summary: 'One incident',
    responses: { 200: { description: 'The incident', schema: incident } },
  },
];
