/** SQL of personal API tokens. Only the SHA-256 of a token's value is stored. */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

export interface TokenRow {
  id: number;
  userId: number;
  name: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

function mapRow(row: Record<string, unknown>): TokenRow {
  return {
    id: row['id'] as number,
    userId: row['user_id'] as number,
    name: row['name'] as string,
    createdAt: row['created_at'] as Date,
    expiresAt: (row['expires_at'] as Date | null) ?? null,
    revokedAt: (row['revoked_at'] as Date | null) ?? null,
    lastUsedAt: (row['last_used_at'] as Date | null) ?? null,
  };
}

const COLUMNS = ['id', 'user_id', 'name', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'];

export function createTokensRepo(db: Knex) {
  return {
    transaction: transactionOf(db),

    async insert(
      userId: number,
      name: string,
      tokenHash: string,
      expiresAt: Date | null,
      now: Date,
      q: Knex = db,
    ): Promise<TokenRow> {
      const [row] = await q('api_tokens')
        .insert({ user_id: userId, name, token_hash: tokenHash, expires_at: expiresAt, created_at: now })
        .returning(COLUMNS);
      return mapRow(row);
    },

    async listByUser(userId: number): Promise<TokenRow[]> {
      const rows = await db('api_tokens').select(COLUMNS).where({ user_id: userId }).orderBy('id', 'desc');
      return rows.map(mapRow);
    },

    async findOwned(userId: number, id: number, q: Knex = db): Promise<TokenRow | null> {
      const row = await q('api_tokens').select(COLUMNS).where({ user_id: userId, id }).first();
      return row ? mapRow(row) : null;
    },

    async revoke(id: number, now: Date, q: Knex = db): Promise<void> {
      await q('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
    },

    /** A token that works at `now`: not revoked, not expired, and its account not disabled. */
    async findUsable(tokenHash: string, now: Date): Promise<{ id: number; userId: number } | null> {
      const row = await db('api_tokens as t')
        .join('users as u', 'u.id', 't.user_id')
        .where('t.token_hash', tokenHash)
        .whereNull('t.revoked_at')
        .where((where) => where.whereNull('t.expires_at').orWhere('t.expires_at', '>', now))
        .where('u.disabled', false)
        .first('t.id', 't.user_id');
      return row ? { id: row.id, userId: row.user_id } : null;
    },

    /** Whether token `id` still works at `now` (the live channel re-checks open sockets with it). */
    async isUsable(id: number, now: Date): Promise<boolean> {
      const row = await db('api_tokens as t')
        .join('users as u', 'u.id', 't.user_id')
        .where('t.id', id)
        .whereNull('t.revoked_at')
        .where((where) => where.whereNull('t.expires_at').orWhere('t.expires_at', '>', now))
        .where('u.disabled', false)
        .first('t.id');
      return row !== undefined;
    },

    /**
     * Refreshes last_used_at unless it was refreshed within `minAgeMs`: the condition is in the
     * UPDATE itself, so concurrent requests with one token write it at most once.
     */
    async touchLastUsed(id: number, now: Date, minAgeMs: number): Promise<void> {
      await db('api_tokens')
        .where({ id })
        .where((where) =>
          where.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - minAgeMs)),
        )
        .update({ last_used_at: now });
    },
  };
}

export type TokensRepo = ReturnType<typeof createTokensRepo>;
