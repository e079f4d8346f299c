/** SQL of browser sessions. Rows are keyed by the SHA-256 of the cookie's token. */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

/** How a session was opened: the sign-in form or the identity provider. */
export type SessionMethod = 'password' | 'sso';

export interface SessionRow {
  id: string;
  userId: number;
  stage: 'full' | 'second_factor';
  lastSeenAt: Date;
  expiresAt: Date;
  absoluteExpiresAt: Date;
}

export function createSessionRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    async insert(
      row: SessionRow & { ip: string; userAgent: string; method: SessionMethod },
      q: Knex = db,
    ): Promise<void> {
      await q('sessions').insert({
        id: row.id,
        user_id: row.userId,
        stage: row.stage,
        method: row.method,
        ip: row.ip,
        user_agent: row.userAgent.slice(0, 300),
        last_seen_at: row.lastSeenAt,
        expires_at: row.expiresAt,
        absolute_expires_at: row.absoluteExpiresAt,
      });
    },

    /** A live session: neither idle-expired nor past its absolute end at `now`. */
    async findLive(id: string, now: Date): Promise<SessionRow | null> {
      const row = await db('sessions')
        .where({ id })
        .where('expires_at', '>', now)
        .where('absolute_expires_at', '>', now)
        .first('id', 'user_id', 'stage', 'last_seen_at', 'expires_at', 'absolute_expires_at');
      if (!row) return null;
      return {
        id: row.id,
        userId: row.user_id,
        stage: row.stage,
        lastSeenAt: row.last_seen_at,
        expiresAt: row.expires_at,
        absoluteExpiresAt: row.absolute_expires_at,
      };
    },

    async touch(id: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
      await db('sessions').where({ id }).update({ last_seen_at: lastSeenAt, expires_at: expiresAt });
    },

    /** Deletes a session; returns the account it belonged to (null if there was none). */
    async delete(id: string, q: Knex = db): Promise<number | null> {
      const [row] = await q('sessions').where({ id }).delete().returning<{ user_id: number }[]>('user_id');
      return row?.user_id ?? null;
    },

    /**
     * Deletes the password sessions of every account a password may no longer open (all but enabled
     * break-glass administrators with a password of their own); returns the accounts they belonged to.
     */
    async deleteRefusedPasswordSessions(q: Knex): Promise<number[]> {
      const rows = await q('sessions')
        .where({ method: 'password' })
        .whereNotIn(
          'user_id',
          q('users').select('id').where({ role: 'ADMIN', break_glass: true, local_password: true, disabled: false }),
        )
        .delete()
        .returning<{ user_id: number }[]>('user_id');
      return [...new Set(rows.map((row) => row.user_id))];
    },

    async deleteExpired(now: Date): Promise<number> {
      return db('sessions').where('expires_at', '<=', now).orWhere('absolute_expires_at', '<=', now).delete();
    },
  };
}

export type SessionRepo = ReturnType<typeof createSessionRepo>;
