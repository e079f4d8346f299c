/** SQL of single sign-on: sign-ins under way, group mappings, and accounts' provider identities. */
import type { Knex } from 'knex';
import type { Role } from '../lib/access.js';

export interface PendingSignIn {
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  /** A test sign-in by this administrator: nobody is signed in. */
  testBy: number | null;
}

export interface GroupMapping {
  group: string;
  role: Role;
  customerIds: number[];
}

export interface LinkedAccount {
  id: number;
  email: string;
  role: Role;
  disabled: boolean;
  oidcIssuer: string | null;
}

const ACCOUNT_COLUMNS = ['id', 'email', 'role', 'disabled', 'oidc_issuer as oidcIssuer'];

export function createSsoRepo(db: Knex) {
  return {
    transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
      return db.transaction(work);
    },

    /** Stores a sign-in under way, and drops those whose time ran out. */
    async insertPending(stateHash: string, pending: PendingSignIn, expiresAt: Date, now: Date): Promise<void> {
      await db('sso_sign_ins').where('expires_at', '<', now).delete();
      await db('sso_sign_ins').insert({
        state_hash: stateHash,
        nonce: pending.nonce,
        code_verifier: pending.codeVerifier,
        return_to: pending.returnTo,
        test_by: pending.testBy,
        expires_at: expiresAt,
      });
    },

    /** Takes a sign-in under way out for good: a `state` works once, however often it comes back. */
    async takePending(stateHash: string, now: Date): Promise<PendingSignIn | null> {
      const [row] = await db('sso_sign_ins')
        .where({ state_hash: stateHash })
        .delete()
        .returning<
          { nonce: string; code_verifier: string; return_to: string; test_by: number | null; expires_at: Date }[]
        >(['nonce', 'code_verifier', 'return_to', 'test_by', 'expires_at']);
      if (!row || row.expires_at < now) return null;
      return { nonce: row.nonce, codeVerifier: row.code_verifier, returnTo: row.return_to, testBy: row.test_by };
    },

    async listMappings(trx: Knex = db): Promise<GroupMapping[]> {
      const rows = await trx('sso_group_mappings as m')
        .leftJoin('sso_group_customers as c', 'c.group_name', 'm.group_name')
        .select('m.group_name as group', 'm.role')
        .select(
          trx.raw(
            'coalesce(array_agg(c.customer_id ORDER BY c.customer_id) FILTER (WHERE c.customer_id IS NOT NULL), ARRAY[]::integer[]) as "customerIds"',
          ),
        )
        .groupBy('m.group_name', 'm.role')
        .orderBy('m.group_name');
      return rows as GroupMapping[];
    },

    /** Replaces the whole table: the console edits it as one list. */
    async replaceMappings(mappings: GroupMapping[], trx: Knex): Promise<void> {
      await trx('sso_group_mappings').delete();
      if (mappings.length === 0) return;
      await trx('sso_group_mappings').insert(mappings.map((m) => ({ group_name: m.group, role: m.role })));
      const grants = mappings.flatMap((m) =>
        m.customerIds.map((customerId) => ({ group_name: m.group, customer_id: customerId })),
      );
      if (grants.length) await trx('sso_group_customers').insert(grants);
    },

    /** Customers by name, any case (OIDC_GROUP_MAP names them): lower-cased name → ids. */
    async customerIdsByName(names: string[], trx: Knex = db): Promise<Map<string, number[]>> {
      const found = new Map<string, number[]>();
      if (names.length === 0) return found;
      const rows: { id: number; name: string }[] = await trx('customers')
        .whereRaw('lower(name) = ANY(?)', [names.map((name) => name.toLowerCase())])
        .select('id', trx.raw('lower(name) as name'));
      for (const row of rows) found.set(row.name, [...(found.get(row.name) ?? []), row.id]);
      return found;
    },

    async existingCustomerIds(ids: number[], trx: Knex = db): Promise<number[]> {
      if (ids.length === 0) return [];
      return trx('customers').whereIn('id', ids).pluck('id');
    },

    async findByIdentity(issuer: string, subject: string, trx: Knex = db): Promise<LinkedAccount | null> {
      const row = await trx('users').where({ oidc_issuer: issuer, oidc_subject: subject }).first(ACCOUNT_COLUMNS);
      return (row as LinkedAccount | undefined) ?? null;
    },

    async isLinked(userId: number): Promise<boolean> {
      return (await db('users').where({ id: userId }).whereNotNull('oidc_issuer').first('id')) !== undefined;
    },

    async findByEmail(email: string, trx: Knex = db): Promise<LinkedAccount | null> {
      const row = await trx('users').whereRaw('lower(email) = lower(?)', [email]).first(ACCOUNT_COLUMNS);
      return (row as LinkedAccount | undefined) ?? null;
    },

    async link(userId: number, issuer: string, subject: string, trx: Knex): Promise<void> {
      await trx('users').where({ id: userId }).update({ oidc_issuer: issuer, oidc_subject: subject });
    },

    async insertAccount(
      account: { email: string; name: string; role: Role; passwordHash: string; issuer: string; subject: string },
      trx: Knex,
    ): Promise<number> {
      const [row] = await trx('users')
        .insert({
          email: account.email,
          name: account.name,
          role: account.role,
          password_hash: account.passwordHash,
          // the hash is of a value nobody holds: no password of its own (no reset link, no break-glass)
          local_password: false,
          oidc_issuer: account.issuer,
          oidc_subject: account.subject,
        })
        .returning<{ id: number }[]>('id');
      if (!row) throw new Error('insert into users returned no id');
      return row.id;
    },

    async grantsOf(userId: number, trx: Knex = db): Promise<number[]> {
      return trx('user_customer_grants').where({ user_id: userId }).orderBy('customer_id').pluck('customer_id');
    },

    /** The groups this sign-in brought and its time. */
    async recordSignIn(userId: number, groups: string[], now: Date, trx: Knex): Promise<void> {
      await trx('users').where({ id: userId }).update({ oidc_groups: groups, last_sign_in_at: now });
    },

    /** Linked accounts with the groups of their last sign-in, their role and grants. */
    async listLinked(
      trx: Knex,
    ): Promise<{ id: number; role: Role; disabled: boolean; groups: string[]; customerIds: number[] }[]> {
      return trx('users as u')
        .whereNotNull('u.oidc_issuer')
        .whereNotNull('u.oidc_groups')
        .select('u.id', 'u.role', 'u.disabled', 'u.oidc_groups as groups')
        .select(
          trx.raw(
            'coalesce((SELECT array_agg(g.customer_id ORDER BY g.customer_id) FROM user_customer_grants g ' +
              'WHERE g.user_id = u.id), ARRAY[]::integer[]) as "customerIds"',
          ),
        )
        .orderBy('u.id');
    },

    /** The groups a refused sign-in brought (a later mapping is re-applied to them). */
    async recordGroups(userId: number, groups: string[], trx: Knex): Promise<void> {
      await trx('users').where({ id: userId }).update({ oidc_groups: groups });
    },

    /** Signs an account out of every browser (it lost every mapped group). */
    async endSessions(userId: number, trx: Knex): Promise<void> {
      await trx('sessions').where({ user_id: userId }).delete();
    },

    /** The role and grants the mapping gives. */
    async applyRights(userId: number, role: Role, customerIds: number[], trx: Knex): Promise<void> {
      await trx('users').where({ id: userId }).update({ role, updated_at: trx.fn.now() });
      await trx('user_customer_grants').where({ user_id: userId }).delete();
      if (customerIds.length) {
        await trx('user_customer_grants').insert(
          customerIds.map((customerId) => ({ user_id: userId, customer_id: customerId })),
        );
      }
    },
  };
}

export type SsoRepo = ReturnType<typeof createSsoRepo>;
