/**
 * Sign-in (contracts.md "API shapes", "Security rules"): identifier and
 * password, the same answer and similar work for an unknown account and a
 * wrong password, failures limited per (account, address) and per address with
 * growing delays — so nobody can lock an account for everyone.
 */
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { TooManyRequests, Unauthorized } from '../http/errors.js';
import type { UserView, UsersService } from '../users/service.js';
import type { Sessions } from './sessions.js';

export const INVALID_SIGN_IN = 'Invalid sign-in';

export interface LoginLimits {
  perAccount: RateLimiter;
  perAddress: RateLimiter;
  /** First delay after repeated failures; doubles per failure, at most 16×. */
  failureDelayMs: number;
}

export interface LoginInput {
  identifier: string;
  password: string;
}

export interface LoginDeps {
  users: UsersService;
  sessions: Sessions;
  limits: LoginLimits;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createLoginService({ users, sessions, limits }: LoginDeps) {
  return {
    async login(
      input: LoginInput,
      meta: { ip: string; userAgent: string },
    ): Promise<{ user: UserView; sessionToken: string; csrfToken: string }> {
      const accountKey = `${input.identifier.trim().toLowerCase()}|${meta.ip}`;
      for (const [limiter, key] of [
        [limits.perAccount, accountKey],
        [limits.perAddress, meta.ip],
      ] as const) {
        const state = await limiter.peek(key);
        if (!state.allowed)
          throw new TooManyRequests(state.retryAfterSeconds, 'Too many failed sign-ins: try again later');
      }

      const user = await users.verifyCredentials(input.identifier.trim(), input.password);
      if (!user) {
        const [account] = await Promise.all([
          limits.perAccount.consume(accountKey),
          limits.perAddress.consume(meta.ip),
        ]);
        // growing delays from the third failure on slow guessing down without locking anyone out
        if (account.consumed >= 3) await sleep(limits.failureDelayMs * 2 ** Math.min(account.consumed - 3, 4));
        throw new Unauthorized(INVALID_SIGN_IN);
      }

      await limits.perAccount.reset(accountKey);
      const session = await sessions.start(user.id, meta);
      return {
        user: await users.userView(user.id),
        sessionToken: session.token,
        csrfToken: sessions.csrfToken(session.id),
      };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
