/**
 * Every route's description, for GET /api/openapi.json and for the tests that check answers against
 * it: the declarations the app mounted (http/route.ts), and the hand-written docs of the routers not
 * yet declared that way (they leave this list as they are converted). Beside the composition root:
 * it knows every feature.
 */
import type Koa from 'koa';
import type { RouteDoc } from './http/openapi.js';
import { declaredRoutes } from './http/route.js';
import { auditApi } from './audit/routes.js';
import { agentSettingsApi } from './agent-settings/routes.js';
import { rulePreviewApi } from './evaluation/preview-routes.js';
import { evaluationApi } from './evaluation/routes.js';
import { agentApi } from './agents/routes.js';
import { rolloutApi } from './agents/rollout-routes.js';
import { storageApi } from './housekeeping/storage-routes.js';
import { systemsApi } from './systems/routes.js';
import { deliveryLogApi } from './notifications/log-routes.js';
import { alertRetentionApi } from './settings/alert-retention-routes.js';
import { smtpSettingsApi } from './settings/smtp-routes.js';
import { ingestApi } from './ingest/routes.js';
import { healthApi } from './health/routes.js';
import { liveApi } from './live/routes.js';
import { alertsApi } from './alerts/routes.js';
import { incidentsApi } from './alerts/incidents.js';
import { selfMetricsApi } from './self-metrics/routes.js';
import { reportsApi } from './reports/routes.js';
import { overviewApi } from './overview/routes.js';
import { searchApi } from './search/routes.js';
import { publicStatusPageApi, statusPagesApi } from './status-pages/routes.js';

export const API_DOCS: readonly RouteDoc[] = [
  ...agentSettingsApi,
  ...rulePreviewApi,
  ...evaluationApi,
  ...agentApi,
  ...rolloutApi,
  ...storageApi,
  ...systemsApi,
  ...deliveryLogApi,
  ...alertRetentionApi,
  ...smtpSettingsApi,
  ...ingestApi,
  ...healthApi,
  ...liveApi,
  ...alertsApi,
  ...incidentsApi,
  ...selfMetricsApi,
  ...auditApi,
  ...reportsApi,
  ...searchApi,
  ...overviewApi,
  ...statusPagesApi,
  ...publicStatusPageApi,
];

/** What the document of `app` describes: what it mounted from declarations, then the hand-written docs. */
export function describedRoutes(app: Koa): RouteDoc[] {
  return [...declaredRoutes(app), ...API_DOCS];
}
