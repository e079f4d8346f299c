/** /api/settings/forecasts (administrators only): `{windowHours, minShare}`; built in settings/assembly.ts. */
import { routeOf } from '../../http/route.js';
import { forecastSettings, forecastSettingsBody } from '../../../../contracts/settings.js';
import type { ForecastSettingsService } from './service.js';

const route = routeOf<ForecastSettingsService>();

export const forecastSettingsRoutes = [
  route({
    method: 'get',
    path: '/api/settings/forecasts',
    tag: 'Settings',
    access: 'admin',
    summary: 'The window forecast rules fit their trend over, and the share of it that must hold data',
    responses: { 200: { description: 'The forecast settings', schema: forecastSettings } },
    handler: (settings) => settings.get(),
  }),
  route({
    method: 'put',
    path: '/api/settings/forecasts',
    tag: 'Settings',
    access: 'admin',
    summary: 'Set the window of forecast rules and the share of it that must hold data',
    body: forecastSettingsBody,
    responses: { 200: { description: 'The saved forecast settings', schema: forecastSettings } },
    handler: (settings, { actor, body }) => settings.update(actor, body),
  }),
];
