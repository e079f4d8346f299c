/**
 * Password reset by e-mailed link (docs/limits.md "Rate limits": 256-bit
 * random, stored hashed, single use, 1 hour, a newer one supersedes; a reset
 * ends all sessions and trusted devices and does not touch the second factor).
 *
 * The forgot request answers the same whatever the address: the account lookup
 * and the SMTP conversation run after the answer, so neither the body nor the
 * timing tells whether an account exists or whether the mail went out. An account
 * single sign-on created has no password of its own: it gets no link, and the
 * asker the same answer as for an unknown address.
 */
import type { Knex } from 'knex';
import type { AuditTrail } from '../lib/audit-trail.js';
import { Invalid, Unavailable } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { validatePassword } from '../lib/password-rules.js';
import type { Mailer } from '../mail/mailer.js';
import {
  consumeResetToken,
  findAccountByEmail,
  findUsableResetToken,
  replaceResetToken,
  setPasswordAndEndSessions,
} from './repo.js';

export const MAIL_NOT_CONFIGURED = 'Mail is not configured';
export const RESET_LINK_INVALID = 'This reset link is invalid or has expired';
export const RESET_LINK_LIFETIME_MS = 60 * 60 * 1000;

export interface PasswordResetDeps {
  db: Knex;
  clock: Clock;
  mailer: Pick<Mailer, 'isEnabled' | 'send'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  /** Exact public base URL (AUTH_URL): the link is `{authUrl}/reset-password?token=…`. */
  authUrl: string;
  log: Logger;
  audit: AuditTrail;
}

export function createPasswordResetService({ db, clock, mailer, hasher, authUrl, log, audit }: PasswordResetDeps) {
  const inFlight = new Set<Promise<void>>();

  async function sendLink(email: string, address: string | null): Promise<void> {
    const account = await findAccountByEmail(db, email);
    if (!account || account.disabled) {
      log.info('Password reset asked for an address with no enabled account; nothing sent');
      return;
    }
    if (!account.localPassword) {
      log.info(
        { userId: account.id },
        'Password reset asked for an account that signs in through the provider only; nothing sent',
      );
      return;
    }
    const token = randomToken(32);
    const expiresAt = new Date(clock.now().getTime() + RESET_LINK_LIFETIME_MS);
    await db.transaction(async (trx) => {
      await replaceResetToken(trx, account.id, sha256(token), expiresAt);
      // after the answer, like the rest of this work: the row tells an admin, never the asker
      await audit.record(
        trx,
        { type: 'user', id: null, name: email, address },
        { action: 'password.reset_link', targetType: 'user', targetId: account.id },
      );
    });
    const link = `${authUrl}/reset-password?token=${token}`;
    await mailer.send({
      to: account.email,
      subject: 'Reset your Argus password',
      text: [
        'Someone (hopefully you) asked to reset the password of your Argus account.',
        '',
        `Open this link within one hour to choose a new password:`,
        link,
        '',
        'The link works once. Resetting the password signs you out everywhere.',
        'If you did not ask for this, ignore this message: your password stays as it is.',
        '',
      ].join('\n'),
    });
    log.info({ userId: account.id }, 'Password reset link sent');
  }

  return {
    /**
     * 503 while mail is off (docs/api.md "Public"); otherwise returns at once and sends in the
     * background. Failures are logged, never answered.
     */
    async requestReset(email: string, address: string | null = null): Promise<void> {
      if (!(await mailer.isEnabled())) throw new Unavailable(MAIL_NOT_CONFIGURED);
      const job: Promise<void> = sendLink(email, address)
        .catch((error: unknown) =>
          log.warn({ err: error instanceof Error ? error.message : String(error) }, 'Password reset mail failed'),
        )
        .finally(() => inFlight.delete(job));
      inFlight.add(job);
    },

    /** Sets the new password for a valid link; 400 for a bad link or a password that breaks the rule. */
    async resetPassword(token: string, password: string, address: string | null = null): Promise<void> {
      const now = clock.now();
      const found = await findUsableResetToken(db, sha256(token), now);
      if (!found) throw new Invalid(RESET_LINK_INVALID, undefined, 'reset_link_invalid');
      const problem = validatePassword(password, { email: found.email, username: found.username });
      if (problem) throw new Invalid(problem, { field: 'password' });

      const passwordHash = await hasher.hash(password);
      await db.transaction(async (trx) => {
        // checked again under the write: the same link used twice at once sets one password
        if (!(await consumeResetToken(trx, found.tokenId, now)))
          throw new Invalid(RESET_LINK_INVALID, undefined, 'reset_link_invalid');
        await setPasswordAndEndSessions(trx, found.userId, passwordHash, now);
        await audit.record(
          trx,
          { type: 'user', id: found.userId, name: found.email, address },
          { action: 'password.reset', targetType: 'user', targetId: found.userId, after: { password: 'changed' } },
        );
      });
      log.info({ userId: found.userId }, 'Password reset through an e-mailed link; sessions and trusted devices ended');
    },

    /** Resolves once every background send has finished (tests, graceful shutdown). */
    async settled(): Promise<void> {
      await Promise.all([...inFlight]);
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
