/**
 * `GET /api/live` without an upgrade (a plain HTTP request): 401 without
 * credentials like every other route (the guard), else 426. The channel itself is
 * the `upgrade` listener of the HTTP server (hub.ts), which Koa never sees.
 */
import { HttpError } from '../http/errors.js';
import { refusalDoc } from '../http/openapi.js';
import { routeOf } from '../http/route.js';
import { LIVE_PATH } from './protocol.js';

const route = routeOf<unknown>();

export const liveRoutes = [
  route({
    method: 'get',
    path: LIVE_PATH,
    tag: 'Live',
    access: 'signed-in',
    summary: 'The live channel (a WebSocket)',
    description:
      'Open it as a WebSocket (docs/api.md "Live channel"): hello, subscribe to topics, snapshots and messages. A plain HTTP request is answered 426.',
    responses: { 426: refusalDoc('Not a WebSocket upgrade') },
    handler: () => {
      throw new HttpError(426, 'Open /api/live as a WebSocket', 'upgrade_required', undefined, {
        Upgrade: 'websocket',
      });
    },
  }),
];
