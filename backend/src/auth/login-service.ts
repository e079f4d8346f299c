/**
 * Sign-in (docs/protocol.md "Browser sessions", docs/limits.md "Rate limits"): identifier and
 * password, the same answer and similar work for an unknown account and a
 * wrong password, failures limited per (account, address) and per address with
 * growing delays — so nobody can lock an account for everyone. Guessing from
 * many addresses is slowed per account too: past IDENTITY_BUDGET
 * failures from anywhere in 15 minutes every further failure waits longer,
 * never refused. And at most VERIFICATIONS_PER_ACCOUNT passwords of one account are checked at a
 * time (verification-slots.ts): delays alone do not bound guesses sent in parallel. Then the second factor: the client sends the same body again
 * with `code`; CODE_BUDGET wrong codes for one account close its code step for
 * the rest of the window, whatever the address (only someone with the password
 * gets there, so a stranger locks nothing). Crossing either budget tells the
 * owner by e-mail.
 */
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { Forbidden, TooMany, Unauthenticated } from '../lib/errors.js';
import type { FactorKind, SecondFactorService } from '../second-factor/service.js';
import { LOCAL_SIGN_IN_OFF } from '../users/local-sign-in.js';
import type { UserView, UsersService } from '../users/service.js';
import type { GuessingAlert } from './guessing-alert.js';
import type { Sessions } from './sessions.js';
import type { VerificationSlots } from './verification-slots.js';

/** Password failures on one account from anywhere in 15 minutes before each further one is slowed. */
export const IDENTITY_BUDGET = 20;
/** Wrong second-factor codes for one account in 15 minutes that close its code step. */
export const CODE_BUDGET = 10;
/** Sign-ins of one account checked at once; more are refused (429) until one ends. */
export const VERIFICATIONS_PER_ACCOUNT = 3;
/** A failed sign-in's audit row names what was typed only when it names an account. */
export const UNKNOWN_IDENTIFIER = 'unknown';

export const INVALID_SIGN_IN = 'Invalid sign-in';
export const INVALID_CODE = 'Invalid code';

export interface LoginLimits {
  /** Failures per (account, address): refused past its points. */
  perAccount: RateLimiter;
  perAddress: RateLimiter;
  /** Failures per account from anywhere: counted, never refused (it only slows). */
  perIdentity: RateLimiter;
  /** Distinct addresses that failed on an account (one point per new (account, address)). */
  identityAddresses: RateLimiter;
  /** Wrong codes per account: CODE_BUDGET points, blocked for the rest of the window. */
  codes: RateLimiter;
  /** VERIFICATIONS_PER_ACCOUNT at a time per account. */
  slots: VerificationSlots;
  /** First delay after repeated failures; doubles per failure, at most 16× (64× from anywhere). */
  failureDelayMs: number;
}

/** The wait before a failure is answered: the larger of the per-address and the per-account rule. */
export function failureDelayMs(fromHere: number, fromAnywhere: number, base: number): number {
  const local = fromHere >= 3 ? base * 2 ** Math.min(fromHere - 3, 4) : 0;
  const global = fromAnywhere > IDENTITY_BUDGET ? base * 2 ** Math.min(fromAnywhere - IDENTITY_BUDGET, 6) : 0;
  return Math.max(local, global);
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
  guessing: GuessingAlert;
  audit: AuditTrail;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createLoginService({ users, sessions, secondFactor, limits, guessing, audit }: LoginDeps) {
  /** Distinct addresses that failed on this account in the window (counting this one if new). */
  async function addressesOf(identity: string, fromHere: number): Promise<number> {
    const counted =
      fromHere === 1 ? await limits.identityAddresses.consume(identity) : await limits.identityAddresses.peek(identity);
    return counted.consumed;
  }

  /** One more failure per (account, address) and per address. */
  async function count(accountKey: string, ip: string) {
    const [account, address] = await Promise.all([
      limits.perAccount.consume(accountKey),
      limits.perAddress.consume(ip),
    ]);
    return { account, address };
  }

  /**
   * Counts the attempt as a failure before the password is checked, so attempts in parallel cannot
   * all pass a check made before any of them failed; a password that verifies gives the points
   * back. The per-(account, address) count, or a 429.
   */
  async function reserve(accountKey: string, ip: string): Promise<number> {
    const { account, address } = await count(accountKey, ip);
    const refused = [account, address].find((result) => !result.allowed);
    if (refused) throw new TooMany(refused.retryAfterSeconds, 'Too many failed sign-ins: try again later');
    return account.consumed;
  }

  async function refund(accountKey: string, ip: string): Promise<void> {
    await Promise.all([limits.perAccount.refund(accountKey), limits.perAddress.refund(ip)]);
  }

  async function fail(
    identity: string,
    ip: string,
    failure: { message: string; code: string; fromHere: number },
  ): Promise<never> {
    // what was typed is kept only when it names an account: a password typed into the wrong field is not
    const name = (await users.namesAccount(identity)) ? identity : UNKNOWN_IDENTIFIER;
    await audit.recordAlone(
      { type: 'user', id: null, name, address: ip },
      { action: 'auth.sign_in_failed', targetType: 'user', after: { reason: failure.code } },
    );
    const everywhere = await limits.perIdentity.consume(identity);
    const addresses = await addressesOf(identity, failure.fromHere);
    if (everywhere.consumed === IDENTITY_BUDGET + 1) guessing.notify(identity, 'password', addresses);
    // growing delays slow guessing down without locking anyone out
    const wait = failureDelayMs(failure.fromHere, everywhere.consumed, limits.failureDelayMs);
    if (wait > 0) await sleep(wait);
    throw new Unauthenticated(failure.message, failure.code);
  }

  async function signIn(identity: string, input: LoginInput, meta: LoginMeta): Promise<LoginResult> {
    const accountKey = `${identity}|${meta.ip}`;
    const fromHere = await reserve(accountKey, meta.ip);
    const user = await users.verifyCredentials(input.identifier.trim(), input.password);
    if (!user) return fail(identity, meta.ip, { message: INVALID_SIGN_IN, code: 'invalid_sign_in', fromHere });
    await refund(accountKey, meta.ip);
    // only someone holding the password learns that password sign-in is off for this account
    if (!(await users.localSignIn.allows(user))) {
      await audit.recordAlone(
        { type: 'user', id: user.id, name: user.email, address: meta.ip },
        {
          action: 'auth.sign_in_failed',
          targetType: 'user',
          targetId: user.id,
          after: { reason: 'local_sign_in_off' },
        },
      );
      throw new Forbidden(LOCAL_SIGN_IN_OFF, 'local_sign_in_off');
    }

    const factor = await secondFactor.requirement(user, meta.trustedDevice);
    if (factor) {
      const codeStep = await limits.codes.peek(String(user.id));
      if (!codeStep.allowed)
        throw new TooMany(codeStep.retryAfterSeconds, 'Too many wrong codes for this account: try again later');
    }
    if (factor && !input.code) {
      if (factor === 'email') await secondFactor.sendEmailCode(user);
      return { kind: 'second-factor', factor };
    }
    if (factor && !(await secondFactor.verify(user, factor, input.code ?? ''))) {
      const codes = await limits.codes.consume(String(user.id));
      if (codes.consumed === CODE_BUDGET) {
        guessing.notify(identity, 'code', (await limits.identityAddresses.peek(identity)).consumed + 1);
      }
      const { account } = await count(accountKey, meta.ip);
      return fail(identity, meta.ip, { message: INVALID_CODE, code: 'invalid_code', fromHere: account.consumed });
    }

    await limits.perAccount.reset(accountKey);
    const session = await sessions.start(user.id, meta, async (trx) => {
      await users.recordSignIn(user.id, trx);
      await audit.record(
        trx,
        { type: 'user', id: user.id, name: user.email, address: meta.ip },
        { action: 'auth.sign_in', targetType: 'user', targetId: user.id, after: factor ? { factor } : null },
      );
    });
    return {
      kind: 'signed-in',
      user: await users.userView(user.id),
      sessionToken: session.token,
      csrfToken: sessions.csrfToken(session.id),
      // only a browser that passed a second factor can be trusted to skip it
      trustedDevice: factor && input.trustDevice ? await secondFactor.trustDevice(user.id) : null,
    };
  }

  return {
    /** Ends the session of a sign-out, with its audit row. */
    async logout(actor: AuditActor, sessionId: string): Promise<void> {
      await sessions.end(sessionId, (trx) =>
        audit.record(trx, actor, { action: 'auth.sign_out', targetType: 'user', targetId: actor.id }),
      );
    },

    async login(input: LoginInput, meta: LoginMeta): Promise<LoginResult> {
      const identity = input.identifier.trim().toLowerCase();
      const free = limits.slots.enter(identity);
      if (!free) throw new TooMany(1, 'Too many sign-ins to this account at once: try again in a moment');
      try {
        return await signIn(identity, input, meta);
      } finally {
        free();
      }
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
