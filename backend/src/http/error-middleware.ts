import type { Middleware } from 'koa';
import { isDatabaseUnavailable } from '../lib/database-unavailable.js';
import { DomainError, TooMany } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { HttpError, statusOf } from './errors.js';

/** What a client waits before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
// one warning per this while the database stays unreachable, not one per request
const OUTAGE_LOG_INTERVAL_MS = 30_000;

/** Statuses koa/koa-body raise themselves (bad JSON, too large, …) that are safe to pass on. */
function clientErrorOf(error: unknown): { status: number; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { status, expose, message } = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status === 'number' && status >= 400 && status < 500 && expose === true && typeof message === 'string') {
    return { status, message };
  }
  return null;
}

export function errorMiddleware(log: Logger): Middleware {
  let lastOutageLog = 0;
  let refusedSinceLog = 0;
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof DomainError) {
        ctx.status = statusOf(error);
        if (error instanceof TooMany) ctx.set('Retry-After', String(error.retryAfterSeconds));
        ctx.body = { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
        return;
      }
      if (error instanceof HttpError) {
        ctx.status = error.status;
        if (error.headers) ctx.set(error.headers);
        ctx.body = { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
        return;
      }
      if (isDatabaseUnavailable(error)) {
        refusedSinceLog += 1;
        if (Date.now() - lastOutageLog >= OUTAGE_LOG_INTERVAL_MS) {
          // the message only: a connection error may carry the host, never the password, but keep it short
          const reason = error instanceof Error ? error.message : String(error);
          log.warn({ reason, refused: refusedSinceLog }, 'Database unavailable: answering 503');
          lastOutageLog = Date.now();
          refusedSinceLog = 0;
        }
        ctx.status = 503;
        ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        ctx.body = { error: 'Database unavailable: try again shortly', code: 'unavailable' };
        return;
      }
      const clientError = clientErrorOf(error);
      if (clientError) {
        ctx.status = clientError.status;
        ctx.body = { error: clientError.message, code: 'bad_request' };
        return;
      }
      log.error({ err: error, method: ctx.method, path: ctx.path }, 'Unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'Internal server error', code: 'internal' };
    }
  };
}
