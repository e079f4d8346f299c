/**
 * Tells an account's owner that someone is guessing at it: one e-mail per hour at most,
 * when the account crosses the password budget (many failures from anywhere) or the second-factor
 * budget (the code step closed). Sent in the background: the sign-in answer never waits for SMTP,
 * and a failure is logged, never answered. Unknown identifiers get nothing (and cost the same).
 */
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { UsersService } from '../users/service.js';

export type GuessingKind = 'password' | 'code';

export interface GuessingAlertDeps {
  users: Pick<UsersService, 'contactOf'>;
  mailer: Mailer;
  /** One mail per account per hour. */
  perHour: RateLimiter;
  authUrl: string;
  log: Logger;
}

export function guessingMail(kind: GuessingKind, addresses: number, authUrl: string) {
  const what =
    kind === 'password'
      ? 'Many sign-ins with a wrong password were tried on your Argus account'
      : 'Many wrong second-factor codes were entered for your Argus account, after a right password';
  return {
    subject:
      kind === 'password' ? 'Argus: someone is guessing your password' : 'Argus: your password is known to someone',
    text: [
      `${what} in the last 15 minutes, from ${addresses} network address${addresses === 1 ? '' : 'es'}.`,
      '',
      kind === 'password'
        ? 'Each further failure is now slowed down; your own sign-in still works.'
        : 'The code step of your account is closed for 15 minutes. Change your password now: whoever tried knows it.',
      '',
      `To change your password, sign in at ${authUrl}/account (Account → Password),`,
      `or ask for a reset link at ${authUrl}/login ("Forgot password?").`,
      'If this was you, nothing else needs doing.',
      '',
    ].join('\n'),
  };
}

export function createGuessingAlert({ users, mailer, perHour, authUrl, log }: GuessingAlertDeps) {
  const inFlight = new Set<Promise<void>>();

  async function send(identifier: string, kind: GuessingKind, addresses: number): Promise<void> {
    const owner = await users.contactOf(identifier);
    if (!owner || !(await mailer.isEnabled())) return;
    if (!(await perHour.consume(String(owner.id))).allowed) return;
    await mailer.send({ to: owner.email, ...guessingMail(kind, addresses, authUrl) });
    log.warn({ userId: owner.id, kind, addresses }, 'Sign-in guessing: the account owner was told');
  }

  return {
    notify(identifier: string, kind: GuessingKind, addresses: number): void {
      const job = send(identifier, kind, addresses)
        .catch((error: unknown) =>
          log.error({ err: { message: (error as Error).message }, kind }, 'Sign-in guessing mail failed'),
        )
        .finally(() => inFlight.delete(job));
      inFlight.add(job);
    },
    /** Tests and shutdown: wait for the mails under way. */
    async settled(): Promise<void> {
      await Promise.all([...inFlight]);
    },
  };
}

export type GuessingAlert = ReturnType<typeof createGuessingAlert>;
