/**
 * The second factor at sign-in (docs/api.md "Second factor (session cookie only)"): a
 * TOTP code when an authenticator is enrolled; otherwise an e-mailed 6-digit
 * code when SMTP is enabled; otherwise none. A trusted device skips it.
 * TOTP: ±1 step, each step usable once. E-mailed codes: 10 minutes, single
 * use, hashed, 5 tries.
 */
import type { Knex } from 'knex';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { randomDigits, randomToken, safeEqual, sha256 } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Mailer } from '../mail/mailer.js';
import { places } from '../secrets/places.js';
import { Conflict, Invalid } from '../lib/errors.js';
import type { SecondFactorRepo } from './repo.js';

export type FactorKind = 'totp' | 'email';

export const TRUSTED_DEVICE_MS = 30 * 86_400_000;
const EMAIL_CODE_MS = 10 * 60_000;
const EMAIL_CODE_TRIES = 5;
const PERIOD_S = 30;

export interface SecondFactorDeps {
  repo: SecondFactorRepo;
  box: SecretBox;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  audit: AuditTrail;
}

// the same places the key check re-encrypts (secrets/places.ts)
const totpPlace = places.totpSecret;
const pendingPlace = places.totpPendingSecret;
const emailCodeHash = (userId: number, code: string) => sha256(`email-code:${userId}:${code}`);

export function createSecondFactorService({ repo, box, mailer, clock, log, audit }: SecondFactorDeps) {
  /** Writes a second-factor change of `userId` and its audit row in one transaction. */
  const changeOf = (actor: AuditActor, userId: number, action: string, work: (trx: Knex) => Promise<void>) =>
    repo.transaction(async (trx) => {
      await work(trx);
      await audit.record(trx, actor, { action, targetType: 'user', targetId: userId });
    });

  const epoch = () => Math.floor(clock.now().getTime() / 1000);

  /** The step a code matches (±1 step), or null; `after` rejects steps already used. */
  async function matchStep(secret: string, code: string, after: number | null): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epoch: epoch(),
      epochTolerance: PERIOD_S,
      ...(after !== null ? { afterTimeStep: after } : {}),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  return {
    async requirement(user: { id: number; totpSecret: string | null }, trustedToken: string | undefined) {
      if (trustedToken && (await repo.isTrustedDevice(user.id, sha256(trustedToken), clock.now()))) return null;
      if (user.totpSecret) return 'totp' satisfies FactorKind;
      return (await mailer.isEnabled()) ? ('email' satisfies FactorKind) : null;
    },

    /** Sends a fresh e-mailed code (a failed send is logged; the person can ask again). */
    async sendEmailCode(user: { id: number; email: string }): Promise<void> {
      const code = randomDigits(6);
      await repo.replaceEmailCode(
        user.id,
        emailCodeHash(user.id, code),
        new Date(clock.now().getTime() + EMAIL_CODE_MS),
      );
      try {
        await mailer.send({
          to: user.email,
          subject: `Your Argus sign-in code: ${code}`,
          text: `Your Argus sign-in code is ${code}. It works once, for 10 minutes.\n\nIf you did not try to sign in, change your password.`,
        });
      } catch (error) {
        log.warn({ userId: user.id, err: { message: (error as Error).message } }, 'Sign-in code e-mail failed');
      }
    },

    async verify(user: { id: number }, kind: FactorKind, code: string): Promise<boolean> {
      if (kind === 'totp') {
        const stored = await repo.findTotp(user.id);
        const secret = stored.secret ? box.open(stored.secret, totpPlace(user.id)) : null;
        if (!secret) return false; // a secret the key no longer opens: the user cannot sign in (docs/api.md "Second factor")
        const step = await matchStep(secret, code, stored.lastStep);
        return step !== null && (await repo.claimStep(user.id, step));
      }
      const row = await repo.findLiveEmailCode(user.id, clock.now());
      if (!row || row.attempts >= EMAIL_CODE_TRIES) return false;
      if (!safeEqual(row.codeHash, emailCodeHash(user.id, code.trim()))) {
        await repo.countEmailCodeAttempt(row.id);
        return false;
      }
      return repo.useEmailCode(row.id, clock.now());
    },

    /** Remembers this browser for the account; returns the cookie value. */
    async trustDevice(userId: number): Promise<string> {
      const token = randomToken(32);
      await repo.insertTrustedDevice(userId, sha256(token), new Date(clock.now().getTime() + TRUSTED_DEVICE_MS));
      return token;
    },

    async beginEnrolment(actor: AuditActor, user: { id: number; email: string }) {
      // swapping the authenticator of an enrolled account must take the password (turn it off first)
      if ((await repo.findTotp(user.id)).secret) {
        throw new Conflict('Two-factor authentication is on: turn it off first', 'totp_enabled');
      }
      const secret = generateSecret();
      await changeOf(actor, user.id, 'second_factor.setup', (trx) =>
        repo.setPending(user.id, box.seal(secret, pendingPlace(user.id)), trx),
      );
      const otpauthUrl = generateURI({ issuer: 'Argus', label: user.email, secret });
      return { secret, otpauthUrl, qrDataUrl: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 240 }) };
    },

    async confirmEnrolment(actor: AuditActor, userId: number, code: string): Promise<void> {
      const stored = await repo.findTotp(userId);
      const secret = stored.pending ? box.open(stored.pending, pendingPlace(userId)) : null;
      if (!secret) throw new Conflict('Start the enrolment first', 'totp_not_pending');
      const step = await matchStep(secret, code, null);
      if (step === null)
        throw new Invalid('code: the code does not match; check the time on your phone', { field: 'code' });
      await changeOf(actor, userId, 'second_factor.enable', (trx) =>
        repo.confirm(userId, box.seal(secret, totpPlace(userId)), step, trx),
      );
    },

    async disable(actor: AuditActor, userId: number): Promise<void> {
      await changeOf(actor, userId, 'second_factor.disable', (trx) => repo.clear(userId, trx));
    },
  };
}

export type SecondFactorService = ReturnType<typeof createSecondFactorService>;
