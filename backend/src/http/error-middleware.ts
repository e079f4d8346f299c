import type { Middleware } from 'koa';
import type { Logger } from '../lib/logger.js';
import { HttpError } from './errors.js';

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
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        ctx.status = error.status;
        if (error.headers) ctx.set(error.headers);
        ctx.body = { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
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
