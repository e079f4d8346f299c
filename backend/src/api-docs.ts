/**
 * Every route's description, for GET /api/openapi.json and for the tests that check answers against
 * it: the declarations the app mounted (http/route.ts), and the hand-written docs of the routers not
 * yet declared that way (they leave this list as they are converted). Beside the composition root:
 * it knows every feature.
 */
import type Koa from 'koa';
import type { RouteDoc } from './http/openapi.js';
import { declaredRoutes } from './http/route.js';
import { usersApi } from './users/routes.js';
import { authApi } from './auth/routes.js';
import { secondFactorApi } from './second-factor/routes.js';
import { channelsApi } from './channels/routes.js';
import { systemsApi } from './systems/routes.js';
import { rulesApi } from './rules/routes.js';
import { ingestApi } from './ingest/routes.js';
import { maintenanceApi } from './maintenance/routes.js';
import { tokensApi } from './tokens/routes.js';
import { passwordResetApi } from './password-reset/routes.js';

export const API_DOCS: readonly RouteDoc[] = [
  ...usersApi,
  ...authApi,
  ...secondFactorApi,
  ...channelsApi,
  ...systemsApi,
  ...rulesApi,
  ...ingestApi,
  ...maintenanceApi,
  ...tokensApi,
  ...passwordResetApi,
];

/** What the document of `app` describes: what it mounted from declarations, then the hand-written docs. */
export function describedRoutes(app: Koa): RouteDoc[] {
  return [...declaredRoutes(app), ...API_DOCS];
}
