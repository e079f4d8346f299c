/**
 * `GET /api/live` without an upgrade (a plain HTTP request): 401 without
 * credentials like every other route, else 426. The channel itself is the
 * `upgrade` listener of the HTTP server (hub.ts), which Koa never sees.
 */
import Router from '@koa/router';
import { HttpError } from '../http/errors.js';
import { currentPrincipal } from '../http/route-guards.js';
import { LIVE_PATH } from './protocol.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';

export function liveRoutes(): Router {
  const router = new Router();
  router.get(LIVE_PATH, (ctx) => {
    currentPrincipal(ctx.state);
    throw new HttpError(426, 'Open /api/live as a WebSocket', 'upgrade_required', undefined, {
      Upgrade: 'websocket',
    });
  });
  return router;
}

/** What live/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const liveApi: RouteDoc[] = [
  {
    method: 'get',
    path: LIVE_PATH,
    tag: 'Live',
    access: 'signed-in',
    summary: 'The live channel (a WebSocket)',
    description:
      'Open it as a WebSocket (contracts.md "Live channel"): hello, subscribe to topics, snapshots and messages. A plain HTTP request is answered 426.',
    responses: { 426: refusalDoc('Not a WebSocket upgrade') },
  },
];
