/**
 * Browser sessions (docs/protocol.md "Browser sessions"): a fresh random token at
 * every sign-in, stored hashed; idle expiry 7 days, absolute 30 days. The
 * cookie carrying the token is signed with AUTH_SECRET by Koa, so changing
 * AUTH_SECRET signs everybody out.
 */
import type { Knex } from 'knex';
import { createHmac } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, safeEqual, sha256 } from '../lib/crypto.js';
import type { SessionMethod, SessionRepo, SessionRow } from './session-repo.js';

export const SESSION_COOKIE = 'argus.sid';
/** Skips the second factor for one account on one browser (backed by a trusted_devices row). */
export const TRUSTED_DEVICE_COOKIE = 'argus.td';
const DAY = 86_400_000;
export const IDLE_MS = 7 * DAY;
export const ABSOLUTE_MS = 30 * DAY;
// Writing last_seen_at on every request would make every page view a write; once a minute is enough.
const TOUCH_EVERY_MS = 60_000;

export interface SessionsDeps {
  repo: SessionRepo;
  clock: Clock;
  authSecret: string;
  /** Sign-out is announced on `rights`, so the live channel closes that session's sockets with 4401. */
  bus?: Pick<Bus, 'publish'>;
}

export function createSessions({ repo, clock, authSecret, bus }: SessionsDeps) {
  return {
    /**
     * Starts a session; returns the cookie value (the only place the token exists in clear).
     * `within` runs in its transaction (the sign-in's audit row); `method` is how it was opened.
     */
    async start(
      userId: number,
      meta: { ip: string; userAgent: string },
      within?: (trx: Knex.Transaction) => Promise<void>,
      method: SessionMethod = 'password',
    ): Promise<{ token: string; id: string }> {
      const token = randomToken(32);
      const now = clock.now();
      const id = sha256(token);
      await repo.transaction(async (trx) => {
        await repo.insert(
          {
            id,
            userId,
            stage: 'full',
            lastSeenAt: now,
            expiresAt: new Date(now.getTime() + IDLE_MS),
            absoluteExpiresAt: new Date(now.getTime() + ABSOLUTE_MS),
            ...meta,
            method,
          },
          trx,
        );
        await within?.(trx);
      });
      return { token, id };
    },

    /** The live full session a cookie token opens, or null; keeps an active session alive. */
    async resolve(token: string): Promise<SessionRow | null> {
      const now = clock.now();
      const session = await repo.findLive(sha256(token), now);
      if (!session || session.stage !== 'full') return null;
      if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
        const expiresAt = new Date(Math.min(now.getTime() + IDLE_MS, session.absoluteExpiresAt.getTime()));
        await repo.touch(session.id, now, expiresAt);
      }
      return session;
    },

    /** Ends a session; `within` runs in its transaction (a sign-out's audit row). */
    async end(sessionId: string, within?: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
      const userId = await repo.transaction(async (trx) => {
        const ended = await repo.delete(sessionId, trx);
        if (ended !== null) await within?.(trx);
        return ended;
      });
      if (userId !== null) await bus?.publish('rights', { userId });
    },

    /**
     * In the transaction that refuses password sign-in: ends the password sessions of the accounts it
     * now refuses. The caller announces the returned accounts on `rights` once the transaction is
     * committed, so their live sockets close.
     */
    endRefusedPasswordSessions: (trx: Knex.Transaction): Promise<number[]> => repo.deleteRefusedPasswordSessions(trx),

    /** Whether a session still opens the console (the live channel re-checks open sockets with it). */
    async isLive(sessionId: string): Promise<boolean> {
      const session = await repo.findLive(sessionId, clock.now());
      return session !== null && session.stage === 'full';
    },

    /** The CSRF token of a session: derived, so nothing more is stored. */
    csrfToken(sessionId: string): string {
      return createHmac('sha256', authSecret).update(`csrf:${sessionId}`).digest('base64url');
    },

    csrfMatches(sessionId: string, presented: string | undefined): boolean {
      return presented !== undefined && safeEqual(presented, this.csrfToken(sessionId));
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
