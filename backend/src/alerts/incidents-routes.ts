/**
 * /api/incidents: cluster incidents ("Site down: <cluster>") with their member alerts, for every
 * account that may see the customer (the evaluation run opens and resolves them).
 */
import { z } from 'zod';
import { idParam, routeOf } from '../http/route.js';
import type { IncidentsService } from './incidents-service.js';
import { incident, incidentsQuery } from '../../../contracts/alerts.js';

const route = routeOf<IncidentsService>();

export const incidentsRoutes = [
  route({
    method: 'get',
    path: '/api/incidents',
    tag: 'Alerts',
    access: 'signed-in',
    summary: 'List incidents (a cluster down), newest first',
    query: incidentsQuery,
    responses: { 200: { description: 'Incidents with their member alerts', schema: z.array(incident) } },
    handler: (incidents, { principal, query }) =>
      incidents.list(principal, { state: query.state, customerId: query.customer, limit: query.limit }),
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
    handler: (incidents, { principal, params }) => incidents.get(principal, params.id),
  }),
];
