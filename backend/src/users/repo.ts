/** SQL of accounts: users, their customer grants and their sign-in artefacts. */
import type { Knex } from 'knex';
import type { Role } from '../lib/access.js';

export interface UserRow {
  id: number;
  email: string;
  username: string | null;
  name: string;
  role: Role;
  passwordHash: string;
  totpSecret: string | null;
  disabled: boolean;
  notifyMinSeverity: 'INFO' | 'WARNING' | 'CRITICAL' | 'NONE';
  createdAt: Date;
  /** A password someone chose (false: created by single sign-on, its hash opens nothing). */
  localPassword: boolean;
  /** An administrator who may always sign in with a password. */
  breakGlass: boolean;
  /** Linked to an identity at the OpenID provider. */
  sso: boolean;
  lastSignInAt: Date | null;
}

export interface UserWithGrants extends UserRow {
  customerIds: number[];
}

const COLUMNS = [
  'id',
  'email',
  'username',
  'name',
  'role',
  'password_hash',
  'totp_secret',
  'disabled',
  'notify_min_severity',
  'created_at',
  'local_password',
  'break_glass',
  'oidc_issuer',
  'last_sign_in_at',
];

function mapRow(row: Record<string, unknown>): UserRow {
  return {
    id: row['id'] as number,
    email: row['email'] as string,
    username: (row['username'] as string | null) ?? null,
    name: row['name'] as string,
    role: row['role'] as Role,
    passwordHash: row['password_hash'] as string,
    totpSecret: (row['totp_secret'] as string | null) ?? null,
    disabled: row['disabled'] as boolean,
    notifyMinSeverity: row['notify_min_severity'] as UserRow['notifyMinSeverity'],
    createdAt: row['created_at'] as Date,
    localPassword: row['local_password'] as boolean,
    breakGlass: row['break_glass'] as boolean,
    sso: row['oidc_issuer'] !== null,
    lastSignInAt: (row['last_sign_in_at'] as Date | null) ?? null,
  };
}

export interface NewUser {
  email: string;
  username: string | null;
  name: string;
  role: Role;
  passwordHash: string;
  breakGlass?: boolean;
}

export interface UserChanges {
  email?: string;
  username?: string | null;
  name?: string;
  role?: Role;
  disabled?: boolean;
  passwordHash?: string;
  notifyMinSeverity?: UserRow['notifyMinSeverity'];
  breakGlass?: boolean;
}

function toColumns(changes: UserChanges): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (changes.email !== undefined) columns['email'] = changes.email;
  if (changes.username !== undefined) columns['username'] = changes.username;
  if (changes.name !== undefined) columns['name'] = changes.name;
  if (changes.role !== undefined) columns['role'] = changes.role;
  if (changes.disabled !== undefined) columns['disabled'] = changes.disabled;
  // a password an administrator sets is one someone chose: the account may use it
  if (changes.passwordHash !== undefined)
    Object.assign(columns, { password_hash: changes.passwordHash, local_password: true });
  if (changes.breakGlass !== undefined) columns['break_glass'] = changes.breakGlass;
  if (changes.notifyMinSeverity !== undefined) columns['notify_min_severity'] = changes.notifyMinSeverity;
  return columns;
}

export function createUsersRepo(db: Knex) {
  return {
    async anyUserExists(trx: Knex = db): Promise<boolean> {
      return (await trx('users').first('id')) !== undefined;
    },

    /** Sign-in matching (docs/api.md "Public"): a value with "@" is an e-mail, anything else a username; case-insensitive. */
    async findByIdentifier(identifier: string): Promise<UserRow | null> {
      const column = identifier.includes('@') ? 'email' : 'username';
      const row = await db('users').select(COLUMNS).whereRaw(`lower(${column}) = lower(?)`, [identifier]).first();
      return row ? mapRow(row) : null;
    },

    async findById(id: number, trx: Knex = db): Promise<UserRow | null> {
      const row = await trx('users').select(COLUMNS).where({ id }).first();
      return row ? mapRow(row) : null;
    },

    async findCustomerIds(userId: number, trx: Knex = db): Promise<number[]> {
      return trx('user_customer_grants').where({ user_id: userId }).orderBy('customer_id').pluck('customer_id');
    },

    async listWithGrants(): Promise<UserWithGrants[]> {
      const rows = await db('users')
        .select(COLUMNS.map((c) => `users.${c}`))
        .select(
          db.raw(
            'coalesce(array_agg(g.customer_id ORDER BY g.customer_id) FILTER (WHERE g.customer_id IS NOT NULL), ?) AS customer_ids',
            [db.raw("'{}'::int[]")],
          ),
        )
        .leftJoin('user_customer_grants as g', 'g.user_id', 'users.id')
        .groupBy('users.id')
        .orderBy('users.id');
      return rows.map((row: Record<string, unknown>) => ({
        ...mapRow(row),
        customerIds: row['customer_ids'] as number[],
      }));
    },

    /** Whether an e-mail or username (case-insensitive) belongs to another account. */
    async findConflict(
      email: string | undefined,
      username: string | null | undefined,
      exceptId: number | null,
      trx: Knex = db,
    ) {
      const query = trx('users').first('email', 'username');
      query.where((where) => {
        if (email !== undefined) where.orWhereRaw('lower(email) = lower(?)', [email]);
        if (username) where.orWhereRaw('lower(username) = lower(?)', [username]);
      });
      if (exceptId !== null) query.whereNot({ id: exceptId });
      if (email === undefined && !username) return null;
      const row = await query;
      if (!row) return null;
      return email !== undefined && row.email.toLowerCase() === email.toLowerCase() ? 'email' : 'username';
    },

    async insert(user: NewUser, trx: Knex = db): Promise<number> {
      const [row] = await trx('users')
        .insert({
          email: user.email,
          username: user.username,
          name: user.name,
          role: user.role,
          password_hash: user.passwordHash,
          break_glass: user.breakGlass ?? false,
        })
        .returning<{ id: number }[]>('id');
      if (!row) throw new Error('insert into users returned no id');
      return row.id;
    },

    async update(id: number, changes: UserChanges, trx: Knex = db): Promise<void> {
      const columns = toColumns(changes);
      if (Object.keys(columns).length === 0) return;
      await trx('users')
        .where({ id })
        .update({ ...columns, updated_at: trx.fn.now() });
    },

    async delete(id: number, trx: Knex = db): Promise<void> {
      await trx('users').where({ id }).delete();
    },

    async replaceGrants(userId: number, customerIds: number[], trx: Knex = db): Promise<void> {
      await trx('user_customer_grants').where({ user_id: userId }).delete();
      if (customerIds.length) {
        await trx('user_customer_grants').insert(
          customerIds.map((customerId) => ({ user_id: userId, customer_id: customerId })),
        );
      }
    },

    async existingCustomerIds(ids: number[], trx: Knex = db): Promise<number[]> {
      if (ids.length === 0) return [];
      return trx('customers').whereIn('id', ids).pluck('id');
    },

    /** Enabled administrators with a password of their own, all of them or only break-glass ones. */
    async countLocalAdmins(breakGlassOnly: boolean, trx: Knex = db): Promise<number> {
      const query = trx('users').where({ role: 'ADMIN', disabled: false, local_password: true });
      if (breakGlassOnly) query.where({ break_glass: true });
      const [row] = await query.count<{ count: string }[]>({ count: '*' });
      return Number(row?.count ?? 0);
    },

    async recordSignIn(id: number, trx: Knex = db): Promise<void> {
      await trx('users').where({ id }).update({ last_sign_in_at: trx.fn.now() });
    },

    /** The `local_sign_in` setting: whether password sign-in is refused to all but break-glass admins. */
    async localSignInRestricted(trx: Knex = db): Promise<boolean> {
      const row = await trx('app_settings').where({ key: 'local_sign_in' }).first('value');
      return (row?.value as { restricted?: unknown } | undefined)?.restricted === true;
    },

    async setLocalSignInRestricted(restricted: boolean, trx: Knex = db): Promise<void> {
      await trx('app_settings')
        .insert({ key: 'local_sign_in', value: JSON.stringify({ restricted }), updated_at: trx.fn.now() })
        .onConflict('key')
        .merge();
    },

    async countOtherActiveAdmins(exceptId: number, trx: Knex = db): Promise<number> {
      const [row] = await trx('users')
        .where({ role: 'ADMIN', disabled: false })
        .whereNot({ id: exceptId })
        .count<{ count: string }[]>({ count: '*' });
      return Number(row?.count ?? 0);
    },

    /** Ends every way the account is signed in on a browser (sessions, trusted devices). */
    async endBrowserSessions(userId: number, options: { exceptSessionId?: string | null } = {}, trx: Knex = db) {
      const sessions = trx('sessions').where({ user_id: userId });
      if (options.exceptSessionId) sessions.whereNot({ id: options.exceptSessionId });
      await sessions.delete();
      await trx('trusted_devices').where({ user_id: userId }).delete();
    },

    async lockAccounts(trx: Knex): Promise<void> {
      // serialises setup and every change that could remove the last active admin
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [7_411_002]);
    },
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
