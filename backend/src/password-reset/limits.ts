/**
 * Limits in front of POST /api/auth/password/forgot (the route's `before`, routes.ts;
 * docs/limits.md "Rate limits"): per client address (429) and per e-mail address. Over the per-e-mail
 * limit the answer is the usual 202 and nothing is sent: no mailbox can be
 * flooded, and the answer still says nothing about whether the account exists.
 */
import type { Middleware } from 'koa';
import { TooMany } from '../lib/errors.js';
import type { Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';

export function forgotPasswordLimits(deps: {
  mailer: Pick<Mailer, 'isEnabled'>;
  perAddress: RateLimiter;
  perEmail: RateLimiter;
}): Middleware {
  return async (ctx, next) => {
    // while mail is off the route answers 503 whatever the limits say
    if (!(await deps.mailer.isEnabled())) return next();
    const byAddress = await deps.perAddress.consume(ctx.state.clientIp);
    if (!byAddress.allowed) throw new TooMany(byAddress.retryAfterSeconds, 'Too many requests: try again later');
    const email = (ctx.request.body as { email?: unknown } | undefined)?.email;
    if (typeof email === 'string' && !(await deps.perEmail.consume(email.trim().toLowerCase())).allowed) {
      ctx.status = 202;
      ctx.body = {};
      return;
    }
    return next();
  };
}
