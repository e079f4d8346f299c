import type { Middleware } from 'koa';

/** Headers every answer carries; the console is same-origin only. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    // a route with a stricter policy of its own keeps it (the public status pages: no script at all)
    if (!ctx.response.get('Referrer-Policy')) ctx.set('Referrer-Policy', 'same-origin');
    if (!ctx.response.get('Content-Security-Policy'))
      ctx.set(
        'Content-Security-Policy',
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
          "font-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
      );
  };
}
