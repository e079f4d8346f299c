/**
 * /api/incidents: cluster incidents ("Site down: <cluster>") with their member alerts, for every
 * account that may see the customer (the evaluation run opens and resolves them).
 */
import { z } from 'zod';
import { idParam, routeOf } from '../http/route.js';
import { canSeeCustomer, visibleTo } from '../lib/access.js';
import { NotFound } from '../lib/errors.js';
import type { IncidentRow, IncidentsRepo } from './incidents-read-repo.js';
import { incident, incidentsQuery } from '../../../contracts/alerts.js';

const incidentView = (row: IncidentRow) => ({
  ...row,
  startedAt: row.startedAt.toISOString(),
  resolvedAt: row.resolvedAt?.toISOString() ?? null,
});

const route = routeOf<IncidentsRepo>();

export const incidentsRoutes = [
  route({
    method: 'get',
    path: '/api/incidents',
    tag: 'Alerts',
    access: 'signed-in',
    summary: 'List incidents (a cluster down), newest first',
    query: incidentsQuery,
    responses: { 200: { description: 'Incidents with their member alerts', schema: z.array(incident) } },
    handler: async (repo, { principal, query }) => {
      const rows = await repo.list({
        visible: visibleTo(principal),
        state: query.state,
        customerId: query.customer,
        limit: query.limit,
      });
      return rows.map(incidentView);
    },
  }),
  route({
    method: 'get',
    path: '/api/incidents/:id',
    tag: 'Alerts',
    access: 'signed-in',
    summary: 'One incident',
    // who asks first (the guard): an anonymous request is a 401 whether or not the incident exists
    params: { id: idParam('incident', Number.MAX_SAFE_INTEGER) },
    responses: { 200: { description: 'The incident', schema: incident } },
    handler: async (repo, { principal, params }) => {
      const row = await repo.find(params.id);
      if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such incident');
      return incidentView(row);
    },
  }),
];
