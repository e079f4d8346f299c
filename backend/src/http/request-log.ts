import type Koa from 'koa';
import type { Logger } from '../lib/logger.js';

/** One log line per request, at debug for the ones that would drown everything else. */
export function requestLog(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // health polls, Prometheus scrapes, static files and agents' accepted reports (~1,000/s) would
      // drown everything else
      const quiet =
        ctx.path === '/api/health' ||
        !ctx.path.startsWith('/api/') ||
        ((ctx.path === '/api/webhook/metrics' || ctx.path === '/api/metrics') && ctx.status === 200);
      const level = quiet ? 'debug' : 'info';
      // at the usual level the agents' accepted reports log nothing: not even the line's object is made
      if (log.isLevelEnabled(level))
        log[level](
          {
            method: ctx.method,
            // a status page's slug is its key: never in the log
            path: ctx.path.startsWith('/status/') ? '/status/:slug' : ctx.path,
            status: ctx.status,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
    }
  };
}
