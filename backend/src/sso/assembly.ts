/**
 * The single sign-on graph, built once by the composition root: the provider (only when OIDC_* is
 * set), the service on the same sessions as a local sign-in, and its routes with their limit.
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import type { SsoConfig } from '../config.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { Sessions } from '../auth/sessions.js';
import type { UsersService } from '../users/service.js';
import { createOidcProvider } from './provider.js';
import { createSsoRepo } from './repo.js';
import { ssoRoutes } from './routes.js';
import { mountRoutes } from '../http/route.js';
import { createSsoService } from './service.js';

export interface SsoAssemblyDeps {
  config: SsoConfig | null;
  authUrl: string;
  db: Knex;
  sessions: Sessions;
  users: Pick<UsersService, 'localSignIn'>;
  hasher: PasswordHasher;
  audit: AuditTrail;
  bus: Bus;
  clock: Clock;
  limiter(name: string, points: number, durationSeconds: number): RateLimiter;
}

export function assembleSso(deps: SsoAssemblyDeps): Router {
  const { config, sessions } = deps;
  const sso = createSsoService({
    config,
    provider: config ? createOidcProvider(config) : null,
    repo: createSsoRepo(deps.db),
    sessions,
    localSignIn: deps.users.localSignIn,
    hasher: deps.hasher,
    audit: deps.audit,
    bus: deps.bus,
    clock: deps.clock,
    authUrl: deps.authUrl,
  });
  // starts and callbacks per client address: a whole office behind one address stays well inside
  return mountRoutes(ssoRoutes, { sso, sessions, limit: deps.limiter('sso', 60, 10 * 60) });
}
