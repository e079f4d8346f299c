/**
 * `POST` and `GET /api/cron/evaluate-alerts` (spec "Endpoints"), one handler.
 * Its own bearer: CRON_SECRET, checked only when set, compared in constant time
 * (SHA-256 of both sides, then timingSafeEqual, so lengths leak nothing). It is
 * mounted before the console's body parser and API-token authentication (like
 * the agent webhook): the scheduler's `Authorization: Bearer <CRON_SECRET>` is
 * not an API token and must not be refused as one. Bodies exactly as the spec
 * writes them: 401 `{error: "Unauthorized"}`, 500 `{success: false, error: "Evaluation failed"}`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from '../lib/logger.js';
import type { Evaluation } from './service.js';
import type { RouteDoc } from '../http/openapi.js';

export const EVALUATE_PATH = '/api/cron/evaluate-alerts';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether the request carries the configured secret; always true when none is configured. */
export function cronAuthorized(authorization: string | undefined, cronSecret: string | null): boolean {
  if (cronSecret === null) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const given = match?.[1] ?? '';
  // compare even when nothing was sent, so the answer takes the same time
  const same = timingSafeEqual(digest(given), digest(cronSecret));
  return same && match !== null;
}

export function evaluationRoutes({
  evaluation,
  cronSecret,
  log,
}: {
  evaluation: Pick<Evaluation, 'run'>;
  cronSecret: string | null;
  log: Logger;
}): Router {
  const router = new Router();
  const handler = async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    if (!cronAuthorized(ctx.get('authorization') || undefined, cronSecret)) {
      ctx.status = 401;
      ctx.body = { error: 'Unauthorized' };
      return;
    }
    try {
      const result = await evaluation.run();
      ctx.status = 200;
      ctx.body = {
        success: true,
        timestamp: result.timestamp,
        alerts: result.alerts,
        health: result.health,
        clusters: result.clusters,
      };
    } catch (error) {
      log.error({ err: error }, 'Evaluation failed');
      ctx.status = 500;
      ctx.body = { success: false, error: 'Evaluation failed' };
    }
  };
  router.get(EVALUATE_PATH, handler);
  router.post(EVALUATE_PATH, handler);
  return router;
}

/** What evaluation/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
export const evaluationApi: RouteDoc[] = [];
