/**
 * `POST` and `GET /api/cron/evaluate-alerts` (docs/protocol.md "Scheduler and health"), one handler.
 * Its own bearer: CRON_SECRET, checked only when set, compared in constant time
 * (SHA-256 of both sides, then timingSafeEqual, so lengths leak nothing). It is
 * mounted before the console's body parser and API-token authentication (like
 * the agent webhook): the scheduler's `Authorization: Bearer <CRON_SECRET>` is
 * not an API token and must not be refused as one. Bodies exactly as docs/api.md "Evaluation"
 * writes them: 401 `{error: "Unauthorized"}`, 500 `{success: false, error: "Evaluation failed"}` (plus
 * `failedCustomers` when only some customers failed and the rest of the fleet was evaluated).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../lib/logger.js';
import type { Evaluation } from './service.js';
import { routeOf, type RouteRequest } from '../http/route.js';
import { evaluationFailure, evaluationResult } from '../../../contracts/operations.js';
import { errorBody } from '../../../contracts/common.js';

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

export interface CronEvaluationDeps {
  evaluation: Pick<Evaluation, 'run'>;
  cronSecret: string | null;
  log: Logger;
}

async function runEvaluation(
  { evaluation, cronSecret, log }: CronEvaluationDeps,
  { ctx }: RouteRequest<object, undefined, undefined>,
) {
  if (!cronAuthorized(ctx.get('authorization') || undefined, cronSecret)) {
    ctx.status = 401;
    return { error: 'Unauthorized' };
  }
  try {
    const result = await evaluation.run();
    if (result.failedCustomers.length) {
      // the rest of the fleet was evaluated; the caller still learns that the run did not complete
      ctx.status = 500;
      return { success: false, error: 'Evaluation failed', failedCustomers: result.failedCustomers };
    }
    return {
      success: true,
      timestamp: result.timestamp,
      alerts: result.alerts,
      health: result.health,
      clusters: result.clusters,
    };
  } catch (error) {
    log.error({ err: error }, 'Evaluation failed');
    ctx.status = 500;
    return { success: false, error: 'Evaluation failed' };
  }
}

const route = routeOf<CronEvaluationDeps>();
const evaluationRun = (method: 'get' | 'post') =>
  route({
    method,
    path: EVALUATE_PATH,
    tag: 'Operations',
    access: 'cron',
    summary: 'Run the alert evaluation once (the scheduler calls it every minute)',
    description:
      'Without CRON_SECRET configured, no bearer is needed. Runs never overlap: a second call waits for the first.',
    headers: { 'Cache-Control': 'no-store' },
    responses: {
      200: { description: 'What the run did', schema: evaluationResult },
      401: { description: 'Wrong or missing CRON_SECRET', schema: errorBody },
      500: {
        description:
          'The run failed (logged). When it failed for some customers only, the others were evaluated and `failedCustomers` names the ids of those that were not.',
        schema: evaluationFailure,
      },
    },
    handler: runEvaluation,
  });

export const evaluationRoutes = [evaluationRun('get'), evaluationRun('post')];
