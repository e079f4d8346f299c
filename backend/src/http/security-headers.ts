import type { Middleware } from 'koa';

/** Headers every answer carries; the console is same-origin only. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
        "font-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    );
  };
}
