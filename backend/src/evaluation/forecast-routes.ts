/**
 * A system's forecast lines, for the projection its page's chart draws. Read like the system itself:
 * any signed-in account that sees the system (404 for one it may not see).
 */
import { idParam, routeOf } from '../http/route.js';
import { systemForecasts } from '../../../contracts/rules.js';
import type { SystemForecastsService } from './system-forecasts.js';

const route = routeOf<SystemForecastsService>();

export const forecastRoutes = [
  route({
    method: 'get',
    path: '/api/systems/:id/forecasts',
    tag: 'Rules',
    access: 'signed-in',
    summary: "A system's forecast lines: the fitted trend of each series a forecast rule reads, and where it goes",
    params: { id: idParam('system') },
    responses: { 200: { description: 'The stored lines and their projections', schema: systemForecasts } },
    handler: (forecasts, { principal, params }) => forecasts.forSystem(principal, params.id),
  }),
];
