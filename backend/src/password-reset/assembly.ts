/**
 * Forgot password and the reset link, built once by the composition root, with their limits
 * (docs/limits.md "Rate limits").
 */
import { mountRoutes } from '../http/route.js';
import type { OriginRule } from '../http/origin.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import { forgotPasswordLimits } from './limits.js';
import { passwordResetRoutes } from './routes.js';
import { createPasswordResetService, type PasswordResetDeps } from './service.js';

export interface PasswordResetAssemblyDeps extends PasswordResetDeps {
  origins: OriginRule;
  limiter: LimiterFactory;
}

export function assemblePasswordReset(deps: PasswordResetAssemblyDeps) {
  const { mailer, limiter } = deps;
  const resets = createPasswordResetService(deps);
  const routes = mountRoutes(passwordResetRoutes, {
    resets,
    origins: deps.origins,
    forgotLimits: forgotPasswordLimits({
      mailer,
      perAddress: limiter('forgot-address', 10, 15 * 60),
      perEmail: limiter('forgot-email', 3, 60 * 60),
    }),
  });
  /** Lets reset mails being sent finish before the pool closes. */
  return { routes, settled: () => resets.settled() };
}
