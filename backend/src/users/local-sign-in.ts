/**
 * Who may sign in with a password while single sign-on is on (docs/decisions.md "Local sign-in
 * beside single sign-on"). An administrator may refuse password sign-in to everyone but break-glass
 * administrators (the first one, created by /setup, is one from the start): their way in when the
 * identity provider is down. Without single sign-on configured the setting has no effect, so taking
 * the provider away never locks anyone out.
 */
import type { Knex } from 'knex';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { Conflict, Invalid } from '../lib/errors.js';
import type { UserRow, UsersRepo } from './repo.js';

export const NO_BREAK_GLASS =
  'Password sign-in is refused to all but break-glass administrators: at least one enabled administrator ' +
  'with a password of their own must stay break-glass';
export const LOCAL_SIGN_IN_OFF =
  'Password sign-in is turned off for this account: sign in with single sign-on, or ask an administrator';

export interface LocalSignInDeps {
  db: Knex;
  repo: UsersRepo;
  audit: AuditTrail;
  /** Whether single sign-on is configured (OIDC_*): without it nobody is refused. */
  singleSignOn: boolean;
}

export function createLocalSignIn({ db, repo, audit, singleSignOn }: LocalSignInDeps) {
  async function restricted(trx: Knex = db): Promise<boolean> {
    return singleSignOn && (await repo.localSignInRestricted(trx));
  }

  return {
    /** The setting as administrators see it (it is stored even while single sign-on is off). */
    setting: (): Promise<boolean> => repo.localSignInRestricted(),

    /** Whether this account may sign in with its password now. */
    async allows(user: Pick<UserRow, 'role' | 'breakGlass' | 'localPassword'>): Promise<boolean> {
      if (!user.localPassword) return false;
      return (user.role === 'ADMIN' && user.breakGlass) || !(await restricted());
    },

    /**
     * For a transaction that changed accounts, after its writes: refuses (and so rolls back) a change
     * that leaves no break-glass administrator while password sign-in is restricted.
     */
    async keepBreakGlass(trx: Knex.Transaction): Promise<void> {
      if ((await restricted(trx)) && (await repo.countLocalAdmins(true, trx)) === 0) throw new Conflict(NO_BREAK_GLASS);
    },

    /** Administrators that may sign in with a password now: break-glass ones only while restricted. */
    async localAdmins(trx: Knex.Transaction): Promise<number> {
      return repo.countLocalAdmins(await restricted(trx), trx);
    },

    /**
     * Turns the setting on or off. `whenRestricting` runs in the same transaction when it is turned
     * on (the open password sessions it now refuses are ended there); how many accounts it signed
     * out goes in the audit row.
     */
    async setRestricted(
      actor: AuditActor,
      value: boolean,
      whenRestricting?: (trx: Knex.Transaction) => Promise<{ accountsSignedOut: number }>,
    ): Promise<void> {
      if (value && !singleSignOn) {
        throw new Invalid('restricted: single sign-on is not configured, so password sign-in stays for everyone', {
          field: 'restricted',
        });
      }
      await db.transaction(async (trx) => {
        await repo.lockAccounts(trx);
        const before = await repo.localSignInRestricted(trx);
        await repo.setLocalSignInRestricted(value, trx);
        if (value && (await repo.countLocalAdmins(true, trx)) === 0) {
          throw new Conflict(
            'No enabled administrator with a password is marked break-glass: mark one under Users first, ' +
              'or nobody could sign in while the identity provider is down',
          );
        }
        const ended = value && whenRestricting ? await whenRestricting(trx) : null;
        await audit.record(trx, actor, {
          action: 'settings.local_sign_in.update',
          targetType: 'settings',
          targetId: 'local_sign_in',
          before: { restricted: before },
          after: { restricted: value, ...ended },
        });
      });
    },
  };
}

export type LocalSignIn = ReturnType<typeof createLocalSignIn>;
