/**
 * The sign-in graph, built once by the composition root: accounts, sessions, API tokens, the second
 * factor and the sign-in itself with its limits (docs/limits.md "Rate limits") and the guessing alert;
 * the authentication in front of every signed-in route, and the routes of all of these.
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import type { AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Mailer } from '../mail/mailer.js';
import type { OriginRule } from '../http/origin.js';
import { mountRoutes } from '../http/route.js';
import type { LimiterFactory } from '../ratelimit/rate-limiter.js';
import { secondFactorRoutes } from '../second-factor/routes.js';
import { createSecondFactorRepo } from '../second-factor/repo.js';
import { createSecondFactorService } from '../second-factor/service.js';
import { createTokensRepo } from '../tokens/repo.js';
import { tokensRoutes } from '../tokens/routes.js';
import { createTokensService } from '../tokens/service.js';
import { createUsersRepo } from '../users/repo.js';
import { usersRoutes } from '../users/routes.js';
import { createUsersService } from '../users/service.js';
import { authenticate } from './authenticate.js';
import { createGuessingAlert } from './guessing-alert.js';
import { CODE_BUDGET, createLoginService, VERIFICATIONS_PER_ACCOUNT } from './login-service.js';
import { createVerificationSlots } from './verification-slots.js';
import { createSessionRepo } from './session-repo.js';
import { authRoutes } from './routes.js';
import { createSessions } from './sessions.js';

export interface AuthAssemblyDeps {
  db: Knex;
  clock: Clock;
  log: Logger;
  bus: Bus;
  box: SecretBox;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditTrail;
  authSecret: string;
  authUrl: string;
  limiter: LimiterFactory;
  /** Base of the growing delay after failed sign-ins (tests make it tiny). */
  failureDelayMs: number;
  /** The one Origin rule of every browser-facing check. */
  origins: OriginRule;
  /** Whether single sign-on is configured: only then can password sign-in be refused. */
  singleSignOn?: boolean;
}

export function assembleAuth(deps: AuthAssemblyDeps) {
  const { users, sessions, tokens, secondFactor, login } = signIn(deps);
  const { limiter, origins } = deps;
  const authentication = authenticate({
    sessions,
    tokens,
    users,
    // 30 failed bearer attempts per 10 minutes per client address
    bearerFailures: limiter('bearer', 30, 10 * 60),
    origins,
  });
  return {
    users,
    sessions,
    authentication,
    routes: mountRoutes(authRoutes, {
      users,
      login,
      sessions,
      mailer: deps.mailer,
      // docs/limits.md "Rate limits": 10 setup attempts per 10 minutes per client address
      setupLimit: limiter('setup', 10, 10 * 60),
      origins,
    }),
    usersRoutes: mountRoutes(usersRoutes, users),
    tokensRoutes: mountRoutes(tokensRoutes, tokens),
    secondFactorRoutes: mountRoutes(secondFactorRoutes, { secondFactor, users }),
  };
}

function signIn(deps: AuthAssemblyDeps) {
  const { db, clock, log, bus, audit, mailer, limiter } = deps;
  const users = createUsersService({
    db,
    repo: createUsersRepo(db),
    hasher: deps.hasher,
    bus,
    audit,
    singleSignOn: deps.singleSignOn ?? false,
  });
  const sessions = createSessions({ repo: createSessionRepo(db), clock, authSecret: deps.authSecret, bus });
  const tokens = createTokensService({ repo: createTokensRepo(db), clock, bus, audit });
  const secondFactor = createSecondFactorService({
    repo: createSecondFactorRepo(db),
    box: deps.box,
    mailer,
    clock,
    log,
    audit,
  });
  const login = createLoginService({
    users,
    sessions,
    secondFactor,
    limits: {
      perAccount: limiter('login-account', 10, 15 * 60),
      perAddress: limiter('login-address', 100, 15 * 60),
      // counted, never refused: the service slows each failure past IDENTITY_BUDGET
      perIdentity: limiter('login-identity', 1_000_000, 15 * 60),
      identityAddresses: limiter('login-identity-addresses', 1_000_000, 15 * 60),
      codes: limiter('login-codes', CODE_BUDGET, 15 * 60, 15 * 60),
      slots: createVerificationSlots(VERIFICATIONS_PER_ACCOUNT),
      failureDelayMs: deps.failureDelayMs,
    },
    audit,
    guessing: createGuessingAlert({
      users,
      mailer,
      perHour: limiter('guessing-mail', 1, 60 * 60),
      authUrl: deps.authUrl,
      log,
    }),
  });
  return { users, sessions, tokens, secondFactor, login };
}
