/**
 * Every route's description (issue 14 item 1), gathered from the features for GET /api/openapi.json
 * and for the tests that check answers against it. Beside the composition root: it knows every feature.
 */
import type { RouteDoc } from './http/openapi.js';
import { auditApi } from './audit/routes.js';
import { customersApi } from './customers/routes.js';
import { enrollmentApi } from './customers/enrollment-routes.js';
import { agentSettingsApi } from './agent-settings/routes.js';
import { rulePreviewApi } from './evaluation/preview-routes.js';
import { evaluationApi } from './evaluation/routes.js';
import { usersApi } from './users/routes.js';
import { agentApi } from './agents/routes.js';
import { rolloutApi } from './agents/rollout-routes.js';
import { authApi } from './auth/routes.js';
import { ssoApi } from './sso/routes.js';
import { secondFactorApi } from './second-factor/routes.js';
import { channelsApi } from './channels/routes.js';
import { storageApi } from './housekeeping/storage-routes.js';
import { systemsApi } from './systems/routes.js';
import { deliveryLogApi } from './notifications/log-routes.js';
import { alertRetentionApi } from './settings/alert-retention-routes.js';
import { smtpSettingsApi } from './settings/smtp-routes.js';
import { rulesApi } from './rules/routes.js';
import { ingestApi } from './ingest/routes.js';
import { healthApi } from './health/routes.js';
import { maintenanceApi } from './maintenance/routes.js';
import { liveApi } from './live/routes.js';
import { alertsApi } from './alerts/routes.js';
import { incidentsApi } from './alerts/incidents.js';
import { tokensApi } from './tokens/routes.js';
import { passwordResetApi } from './password-reset/routes.js';
import { selfMetricsApi } from './self-metrics/routes.js';
import { reportsApi } from './reports/routes.js';
import { overviewApi } from './overview/routes.js';
import { searchApi } from './search/routes.js';
import { publicStatusPageApi, statusPagesApi } from './status-pages/routes.js';

export const API_DOCS: readonly RouteDoc[] = [
  ...customersApi,
  ...enrollmentApi,
  ...agentSettingsApi,
  ...rulePreviewApi,
  ...evaluationApi,
  ...usersApi,
  ...agentApi,
  ...rolloutApi,
  ...authApi,
  ...ssoApi,
  ...secondFactorApi,
  ...channelsApi,
  ...storageApi,
  ...systemsApi,
  ...deliveryLogApi,
  ...alertRetentionApi,
  ...smtpSettingsApi,
  ...rulesApi,
  ...ingestApi,
  ...healthApi,
  ...maintenanceApi,
  ...liveApi,
  ...alertsApi,
  ...incidentsApi,
  ...tokensApi,
  ...passwordResetApi,
  ...selfMetricsApi,
  ...auditApi,
  ...reportsApi,
  ...searchApi,
  ...overviewApi,
  ...statusPagesApi,
  ...publicStatusPageApi,
];
