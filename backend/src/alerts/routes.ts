/** /api/alerts: list with filters and keyset paging, one alert, acknowledge. */
import { z } from 'zod';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
import type { AlertsService } from './service.js';
import { acknowledgeBody, alertDetail, alertsQuery } from '../../../contracts/alerts.js';

const route = routeOf<AlertsService>();
const tag = 'Alerts';
const alertId = { id: idParam('alert', Number.MAX_SAFE_INTEGER) };

export const alertsRoutes = [
  route({
    method: 'get',
    path: '/api/alerts',
    tag,
    access: 'signed-in',
    summary: 'List alerts, newest first',
    description: 'Filters combine; page backwards with `before` = the last id of the previous page.',
    query: alertsQuery,
    responses: { 200: { description: 'A page of alerts', schema: z.array(alertDetail) } },
    handler: (alerts, { principal, query }) =>
      alerts.list(principal, {
        state: query.state,
        customerId: query.customer,
        systemId: query.system,
        severity: query.severity,
        before: query.before,
        limit: query.limit,
      }),
  }),
  route({
    method: 'get',
    path: '/api/alerts/:id',
    tag,
    access: 'signed-in',
    summary: 'One alert',
    params: alertId,
    responses: { 200: { description: 'The alert', schema: alertDetail } },
    handler: (alerts, { principal, params }) => alerts.get(principal, params.id),
  }),
  // a VIEWER is refused before anything is looked up (403); an operator without the grant gets 404
  route({
    method: 'post',
    path: '/api/alerts/:id/ack',
    tag,
    access: 'admin-or-operator',
    summary: 'Acknowledge an open alert',
    description: 'The alert stays open, marked with who, when and a note; repeats and escalations stop until `until`.',
    params: alertId,
    body: acknowledgeBody,
    responses: {
      200: { description: 'The acknowledged alert', schema: alertDetail },
      409: refusalDoc('The alert is resolved or already acknowledged'),
    },
    handler: (alerts, { actor, principal, params, body }) =>
      alerts.acknowledge(actor, principal, params.id, { note: body.note, until: body.until }),
  }),
];
