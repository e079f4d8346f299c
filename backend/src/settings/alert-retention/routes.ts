/** /api/settings/alerts (administrators only): `{retentionDays}` 0..3650, 0 keeps resolved alerts. */
import { routeOf } from '../../http/route.js';
import type { AlertRetentionService } from './service.js';
import { alertRetention, alertRetentionBody } from '../../../../contracts/settings.js';

const route = routeOf<Pick<AlertRetentionService, 'get' | 'update'>>();

export const alertRetentionRoutes = [
  route({
    method: 'get',
    path: '/api/settings/alerts',
    tag: 'Settings',
    access: 'admin',
    summary: 'How long resolved alerts are kept',
    responses: { 200: { description: 'The retention', schema: alertRetention } },
    handler: (retention) => retention.get(),
  }),
  route({
    method: 'put',
    path: '/api/settings/alerts',
    tag: 'Settings',
    access: 'admin',
    summary: 'Set how long resolved alerts are kept (0 keeps them; open alerts are never deleted)',
    body: alertRetentionBody,
    responses: { 200: { description: 'The saved retention', schema: alertRetention } },
    handler: (retention, { actor, body }) => retention.update(actor, body),
  }),
];
