/**
 * Sign-in (contracts.md "API shapes", "Security rules"): identifier and
 * password, the same answer and similar work for an unknown account and a
 * wrong password, failures limited per (account, address) and per address with
 * growing delays — so nobody can lock an account for everyone. Then the second
 * factor: the client sends the same body again with `code`.
 */
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { TooManyRequests, Unauthorized } from '../http/errors.js';
import type { FactorKind, SecondFactorService } from '../second-factor/service.js';
import type { UserView, UsersService } from '../users/service.js';
import type { Sessions } from './sessions.js';

export const INVALID_SIGN_IN = 'Invalid sign-in';
export const INVALID_CODE = 'Invalid code';

export interface LoginLimits {
  perAccount: RateLimiter;
  perAddress: RateLimiter;
  /** First delay after repeated failures; doubles per failure, at most 16×. */
  failureDelayMs: number;
}

export interface LoginInput {
  identifier: string;
  password: string;
  code?: string | undefined;
  trustDevice?: boolean | undefined;
}

export interface LoginMeta {
  ip: string;
  userAgent: string;
  /** Value of the trusted-device cookie, if the browser has one. */
  trustedDevice: string | undefined;
}

export type LoginResult =
  | { kind: 'second-factor'; factor: FactorKind }
  | { kind: 'signed-in'; user: UserView; sessionToken: string; csrfToken: string; trustedDevice: string | null };

export interface LoginDeps {
  users: UsersService;
  sessions: Sessions;
  secondFactor: SecondFactorService;
  limits: LoginLimits;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createLoginService({ users, sessions, secondFactor, limits }: LoginDeps) {
  async function fail(accountKey: string, ip: string, message: string, code: string): Promise<never> {
    const [account] = await Promise.all([limits.perAccount.consume(accountKey), limits.perAddress.consume(ip)]);
    // growing delays from the third failure on slow guessing down without locking anyone out
    if (account.consumed >= 3) await sleep(limits.failureDelayMs * 2 ** Math.min(account.consumed - 3, 4));
    throw new Unauthorized(message, code);
  }

  return {
    async login(input: LoginInput, meta: LoginMeta): Promise<LoginResult> {
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
      if (!user) return fail(accountKey, meta.ip, INVALID_SIGN_IN, 'invalid_sign_in');

      const factor = await secondFactor.requirement(user, meta.trustedDevice);
      if (factor && !input.code) {
        if (factor === 'email') await secondFactor.sendEmailCode(user);
        return { kind: 'second-factor', factor };
      }
      if (factor && !(await secondFactor.verify(user, factor, input.code ?? ''))) {
        return fail(accountKey, meta.ip, INVALID_CODE, 'invalid_code');
      }

      await limits.perAccount.reset(accountKey);
      const session = await sessions.start(user.id, meta);
      return {
        kind: 'signed-in',
        user: await users.userView(user.id),
        sessionToken: session.token,
        csrfToken: sessions.csrfToken(session.id),
        // only a browser that passed a second factor can be trusted to skip it
        trustedDevice: factor && input.trustDevice ? await secondFactor.trustDevice(user.id) : null,
      };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
