/**
 * Accounts: the first administrator (setup), administration of users and
 * grants, an account's own profile and password, and the principal every
 * request is answered as (role and grants read from the database each time).
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import type { Principal, Role } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { Conflict, Invalid, NotFound } from '../lib/errors.js';
import { randomToken } from '../lib/crypto.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { validatePassword } from '../lib/password-rules.js';
import { createLocalSignIn } from './local-sign-in.js';
import type { UserChanges, UserRow, UsersRepo } from './repo.js';
import type { User, UserListItem } from '../../../contracts/accounts.js';

export const ALREADY_SET_UP = 'Already set up';
export const LAST_ADMIN = 'The last active administrator cannot be deleted, disabled or demoted';

/** An account as answers show it (contracts/accounts.ts). */
export type UserView = User;

export interface NewAccount {
  email: string;
  username?: string | null | undefined;
  name: string;
  password: string;
}

export interface UsersDeps {
  db: Knex;
  repo: UsersRepo;
  hasher: PasswordHasher;
  bus: Bus;
  audit: AuditTrail;
  /** Whether single sign-on is configured: only then can password sign-in be refused (local-sign-in.ts). */
  singleSignOn?: boolean;
}

/** What the audit log keeps of an account (never its password hash or TOTP secret). */
const accountFacts = (user: UserView) => ({
  email: user.email,
  username: user.username,
  name: user.name,
  role: user.role,
  disabled: user.disabled,
  notifyMinSeverity: user.notifyMinSeverity,
  customerIds: user.customerIds,
});
/** A password set or changed shows as a changed field, sealed; never its value or hash. */
const PASSWORD_SET = { password: 'changed' };

function view(user: UserRow, customerIds: number[]): UserView {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    name: user.name,
    role: user.role,
    disabled: user.disabled,
    totpEnabled: user.totpSecret !== null,
    source: !user.sso ? 'local' : user.localPassword ? 'both' : 'sso',
    notifyMinSeverity: user.notifyMinSeverity,
    customerIds,
    createdAt: user.createdAt.toISOString(),
  };
}

/** The users list also says how each account signs in, and when it last did. */
function listItem(user: UserRow, customerIds: number[]): UserListItem {
  return {
    ...view(user, customerIds),
    breakGlass: user.breakGlass,
    lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
  };
}

/** Break-glass is for administrators with a password of their own. */
function breakGlassAfter(
  current: UserRow,
  input: { role?: Role | undefined; breakGlass?: boolean | undefined; password?: string | undefined },
): boolean | undefined {
  const role = input.role ?? current.role;
  if (input.breakGlass === true) {
    if (role !== 'ADMIN')
      throw new Invalid('breakGlass: only an administrator can be break-glass', { field: 'breakGlass' });
    if (!current.localPassword && input.password === undefined) {
      throw new Invalid('breakGlass: this account has no password of its own: set one first', { field: 'breakGlass' });
    }
    return true;
  }
  // demoted, an account stops being break-glass
  if (role !== 'ADMIN' && current.breakGlass) return false;
  return input.breakGlass;
}

function checkPassword(password: string, account: { email: string; username?: string | null | undefined }) {
  const problem = validatePassword(password, { email: account.email, username: account.username ?? null });
  if (problem) throw new Invalid(`password: ${problem}`, { field: 'password' });
}

export function createUsersService({ db, repo, hasher, bus, audit, singleSignOn = false }: UsersDeps) {
  const localSignIn = createLocalSignIn({ db, repo, audit, singleSignOn });
  // a hash of the configured cost: verifying against it costs what a real account costs
  let dummyHash: Promise<string> | null = null;

  async function assertUnique(
    email: string | undefined,
    username: string | null | undefined,
    exceptId: number | null,
    trx: Knex,
  ) {
    const conflict = await repo.findConflict(email, username, exceptId, trx);
    if (conflict === 'email') throw new Conflict('Another account uses this e-mail address');
    if (conflict === 'username') throw new Conflict('Another account uses this username');
  }

  async function assertCustomersExist(customerIds: number[], trx: Knex) {
    const found = new Set(await repo.existingCustomerIds(customerIds, trx));
    const missing = customerIds.filter((id) => !found.has(id));
    if (missing.length) throw new Invalid(`customerIds: no customer ${missing.join(', ')}`, { field: 'customerIds' });
  }

  /** Rights changed: open live connections re-check (docs/protocol.md "Live channel"). */
  async function rightsChanged(userId: number) {
    await bus.publish('rights', { userId });
    await accountChanged(userId);
  }

  /** The users page of every ADMIN, and the account's own pages, show it anew. */
  function accountChanged(userId: number) {
    return publishChange(bus, { topic: 'users', ids: [userId], reach: { admins: true, userId } });
  }

  async function userView(id: number, trx: Knex = db): Promise<UserView> {
    const user = await repo.findById(id, trx);
    if (!user) throw new NotFound('No such user');
    return view(user, await repo.findCustomerIds(id, trx));
  }

  return {
    userView,
    localSignIn,

    /** A sign-in's time, in the sign-in's transaction (the users list shows it). */
    recordSignIn: (userId: number, trx: Knex) => repo.recordSignIn(userId, trx),

    /** Where to tell an account's owner about sign-in trouble: its id and address, or null. */
    async contactOf(identifier: string): Promise<{ id: number; email: string } | null> {
      const user = await repo.findByIdentifier(identifier);
      return user && !user.disabled ? { id: user.id, email: user.email } : null;
    },

    async setupNeeded(): Promise<boolean> {
      return !(await repo.anyUserExists());
    },

    /** The first account, ADMIN, only while there is none; an advisory lock makes racing requests create one. */
    async setup(input: NewAccount, address: string | null): Promise<UserView> {
      checkPassword(input.password, input);
      // hash before taking the lock: racing requests must not queue behind each other's bcrypt
      const passwordHash = await hasher.hash(input.password);
      return db.transaction(async (trx) => {
        await repo.lockAccounts(trx);
        if (await repo.anyUserExists(trx)) throw new Conflict(ALREADY_SET_UP);
        const id = await repo.insert(
          // the first administrator can always sign in with a password (break-glass)
          {
            email: input.email,
            username: input.username ?? null,
            name: input.name,
            role: 'ADMIN',
            passwordHash,
            breakGlass: true,
          },
          trx,
        );
        const created = await userView(id, trx);
        await audit.record(
          trx,
          { type: 'user', id, name: created.email, address },
          { action: 'user.setup', targetType: 'user', targetId: id, after: accountFacts(created) },
        );
        return created;
      });
    },

    async list(): Promise<UserListItem[]> {
      return (await repo.listWithGrants()).map((user) => listItem(user, user.customerIds));
    },

    async create(actor: AuditActor, input: NewAccount & { role: Role; customerIds: number[] }): Promise<UserView> {
      checkPassword(input.password, input);
      const passwordHash = await hasher.hash(input.password);
      const created = await db.transaction(async (trx) => {
        await assertUnique(input.email, input.username, null, trx);
        await assertCustomersExist(input.customerIds, trx);
        const id = await repo.insert(
          { email: input.email, username: input.username ?? null, name: input.name, role: input.role, passwordHash },
          trx,
        );
        await repo.replaceGrants(id, input.customerIds, trx);
        const view = await userView(id, trx);
        await audit.record(trx, actor, {
          action: 'user.create',
          targetType: 'user',
          targetId: id,
          after: accountFacts(view),
        });
        return view;
      });
      await accountChanged(created.id);
      return created;
    },

    async update(
      actor: AuditActor,
      id: number,
      input: Omit<UserChanges, 'passwordHash' | 'breakGlass'> & {
        customerIds?: number[] | undefined;
        password?: string | undefined;
        breakGlass?: boolean | undefined;
      },
    ): Promise<UserView> {
      const current = await repo.findById(id);
      if (!current) throw new NotFound('No such user');
      const currentGrants = await repo.findCustomerIds(id);
      const email = input.email ?? current.email;
      const username = input.username === undefined ? current.username : input.username;
      if (input.password !== undefined) checkPassword(input.password, { email, username });
      const breakGlass = breakGlassAfter(current, input);
      const passwordHash = input.password !== undefined ? await hasher.hash(input.password) : undefined;
      const result = await db.transaction(async (trx) => {
        await repo.lockAccounts(trx);
        const removesAdmin =
          current.role === 'ADMIN' &&
          !current.disabled &&
          ((input.role !== undefined && input.role !== 'ADMIN') || input.disabled === true);
        if (removesAdmin && (await repo.countOtherActiveAdmins(id, trx)) === 0) throw new Conflict(LAST_ADMIN);
        await assertUnique(input.email, input.username, id, trx);
        if (input.customerIds) await assertCustomersExist(input.customerIds, trx);
        const { customerIds, password: _password, breakGlass: _breakGlass, ...changes } = input;
        await repo.update(id, { ...changes, ...(passwordHash ? { passwordHash } : {}), breakGlass }, trx);
        if (customerIds) await repo.replaceGrants(id, customerIds, trx);
        await localSignIn.keepBreakGlass(trx);
        // a disabled account, or one whose password an admin reset, is signed out everywhere
        if (input.disabled === true || passwordHash) await repo.endBrowserSessions(id, {}, trx);
        const after = await userView(id, trx);
        await audit.record(trx, actor, {
          action: 'user.update',
          targetType: 'user',
          targetId: id,
          before: { ...accountFacts(view(current, currentGrants)), breakGlass: current.breakGlass },
          after: {
            ...accountFacts(after),
            breakGlass: breakGlass ?? current.breakGlass,
            ...(passwordHash ? PASSWORD_SET : {}),
          },
        });
        return after;
      });
      await rightsChanged(id);
      return result;
    },

    async remove(actor: AuditActor, id: number): Promise<void> {
      await db.transaction(async (trx) => {
        await repo.lockAccounts(trx);
        const current = await repo.findById(id, trx);
        if (!current) throw new NotFound('No such user');
        if (current.role === 'ADMIN' && !current.disabled && (await repo.countOtherActiveAdmins(id, trx)) === 0) {
          throw new Conflict(LAST_ADMIN);
        }
        const before = accountFacts(view(current, await repo.findCustomerIds(id, trx)));
        await repo.delete(id, trx);
        await localSignIn.keepBreakGlass(trx);
        await audit.record(trx, actor, { action: 'user.delete', targetType: 'user', targetId: id, before });
      });
      await rightsChanged(id);
    },

    async updateProfile(
      actor: AuditActor,
      id: number,
      input: Pick<UserChanges, 'email' | 'username' | 'name' | 'notifyMinSeverity'>,
    ): Promise<UserView> {
      const updated = await db.transaction(async (trx) => {
        await assertUnique(input.email, input.username, id, trx);
        const before = await userView(id, trx);
        await repo.update(id, input, trx);
        const after = await userView(id, trx);
        await audit.record(trx, actor, {
          action: 'account.update',
          targetType: 'user',
          targetId: id,
          before: accountFacts(before),
          after: accountFacts(after),
        });
        return after;
      });
      await accountChanged(id);
      return updated;
    },

    /** Own password change: the current one must be right; other browser sessions end. */
    async changePassword(
      actor: AuditActor,
      id: number,
      currentPassword: string,
      newPassword: string,
      keepSessionId: string | null,
    ) {
      const user = await repo.findById(id);
      if (!user) throw new NotFound('No such user');
      if (!(await hasher.verify(currentPassword, user.passwordHash))) {
        throw new Invalid('currentPassword: the current password is not right', { field: 'currentPassword' });
      }
      checkPassword(newPassword, user);
      const passwordHash = await hasher.hash(newPassword);
      await db.transaction(async (trx) => {
        await repo.update(id, { passwordHash }, trx);
        await repo.endBrowserSessions(id, { exceptSessionId: keepSessionId }, trx);
        await audit.record(trx, actor, {
          action: 'password.change',
          targetType: 'user',
          targetId: id,
          after: PASSWORD_SET,
        });
      });
      await rightsChanged(id); // the ended sessions' live sockets close with 4401
    },

    async passwordMatches(id: number, password: string): Promise<boolean> {
      const user = await repo.findById(id);
      return user !== null && (await hasher.verify(password, user.passwordHash));
    },

    /** The account a sign-in identifier and password open, or null (same work either way). */
    async verifyCredentials(identifier: string, password: string): Promise<UserRow | null> {
      const user = await repo.findByIdentifier(identifier);
      // an unknown account costs one bcrypt comparison too, so timing does not tell them apart
      dummyHash ??= hasher.hash(randomToken(16));
      const ok = await hasher.verify(password, user?.passwordHash ?? (await dummyHash));
      return user && ok && !user.disabled ? user : null;
    },

    /** Whether `identifier` names an account (a failed sign-in's audit row keeps only such a name). */
    async namesAccount(identifier: string): Promise<boolean> {
      return (await repo.findByIdentifier(identifier)) !== null;
    },

    async principalFor(
      userId: number,
      via: Principal['via'],
      ids: { sessionId: string | null; tokenId: number | null },
    ): Promise<Principal | null> {
      const user = await repo.findById(userId);
      if (!user || user.disabled) return null;
      const customerIds = user.role === 'ADMIN' ? [] : await repo.findCustomerIds(userId);
      return { userId, role: user.role, email: user.email, via, ...ids, customerIds: new Set(customerIds) };
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
