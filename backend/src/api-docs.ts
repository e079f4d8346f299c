/**
 * Every route's description, for GET /api/openapi.json and for the tests that check answers against
 * it: the declarations the app mounted (http/route.ts), and the hand-written docs of any router not
 * declared that way (none today: a router mounted without `mountRoutes` lists its `RouteDoc`s here).
 * Beside the composition root: it knows every feature.
 */
import type Koa from 'koa';
import type { RouteDoc } from './http/openapi.js';
import { declaredRoutes } from './http/route.js';

export const API_DOCS: readonly RouteDoc[] = [];

/** What the document of `app` describes: what it mounted from declarations, then the hand-written docs. */
export function describedRoutes(app: Koa): RouteDoc[] {
  return [...declaredRoutes(app), ...API_DOCS];
}
