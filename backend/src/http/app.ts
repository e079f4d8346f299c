/**
 * Koa app assembly: middleware order and the feature routers. Everything the
 * routes need arrives through `AppDeps`; main.ts (and tests) build them.
 */
import Koa from 'koa';
import type Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import type { AppConfig } from '../config.js';
import { healthRoutes } from '../health/routes.js';
import { createHealthService } from '../health/service.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { RateLimitStore } from '../ratelimit/rate-limiter.js';
import { clientAddress } from './client-ip.js';
import { errorMiddleware } from './error-middleware.js';
import { NotFound } from './errors.js';
import { securityHeaders } from './security-headers.js';
import { serveConsole } from './static.js';

export interface AppDeps {
  config: AppConfig;
  log: Logger;
  db: Knex;
  redis: Redis | null;
  bus: Bus;
  rateLimitStore: RateLimitStore;
  clock: Clock;
}

declare module 'koa' {
  interface DefaultState {
    /** Client address for rate limits: last X-Forwarded-For entry, else the socket. */
    clientIp: string;
  }
}

function requestLog(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const level = ctx.path === '/api/health' || !ctx.path.startsWith('/api/') ? 'debug' : 'info';
      log[level](
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged by errorMiddleware, once

  app.use(requestLog(deps.log));
  app.use(securityHeaders());
  app.use(errorMiddleware(deps.log));
  app.use(async (ctx, next) => {
    ctx.state.clientIp = clientAddress(ctx.get('x-forwarded-for') || undefined, ctx.req.socket.remoteAddress);
    await next();
  });

  const routers: Router[] = [healthRoutes(createHealthService(deps))];
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());

  app.use(serveConsole(deps.config.staticDir));
  app.use((ctx) => {
    if (ctx.path.startsWith('/api/') || ctx.path === '/api')
      throw new NotFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
    ctx.status = 404;
    ctx.body = 'Not found';
  });
  return app;
}
