/** SQL of second factors: TOTP secrets on users, e-mailed codes and trusted devices. */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

export interface EmailCodeRow {
  id: number;
  codeHash: string;
  attempts: number;
}

export function createSecondFactorRepo(db: Knex) {
  return {
    transaction: transactionOf(db),

    async findTotp(
      userId: number,
    ): Promise<{ secret: string | null; pending: string | null; lastStep: number | null }> {
      const row = await db('users').where({ id: userId }).first('totp_secret', 'totp_pending_secret', 'totp_last_step');
      return {
        secret: row?.totp_secret ?? null,
        pending: row?.totp_pending_secret ?? null,
        lastStep: row?.totp_last_step == null ? null : Number(row.totp_last_step),
      };
    },

    async setPending(userId: number, sealed: string, q: Knex = db): Promise<void> {
      await q('users').where({ id: userId }).update({ totp_pending_secret: sealed });
    },

    /** A new authenticator: browsers trusted under the old arrangement must prove it again. */
    async confirm(userId: number, sealed: string, step: number, q: Knex = db): Promise<void> {
      await q.transaction(async (trx) => {
        await trx('users')
          .where({ id: userId })
          .update({ totp_secret: sealed, totp_pending_secret: null, totp_last_step: step });
        await trx('trusted_devices').where({ user_id: userId }).delete();
      });
    },

    async clear(userId: number, q: Knex = db): Promise<void> {
      await q.transaction(async (trx) => {
        await trx('users')
          .where({ id: userId })
          .update({ totp_secret: null, totp_pending_secret: null, totp_last_step: null });
        await trx('trusted_devices').where({ user_id: userId }).delete();
      });
    },

    /**
     * Records a used time step only if it is newer than the last one: two requests racing with the
     * same code cannot both succeed (the second finds the step already taken).
     */
    async claimStep(userId: number, step: number): Promise<boolean> {
      const updated = await db('users')
        .where({ id: userId })
        .where((where) => where.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
        .update({ totp_last_step: step });
      return updated === 1;
    },

    /** A new e-mailed code supersedes the older ones of the account. */
    async replaceEmailCode(userId: number, codeHash: string, expiresAt: Date): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('email_codes').where({ user_id: userId }).delete();
        await trx('email_codes').insert({ user_id: userId, code_hash: codeHash, expires_at: expiresAt });
      });
    },

    async findLiveEmailCode(userId: number, now: Date): Promise<EmailCodeRow | null> {
      const row = await db('email_codes')
        .where({ user_id: userId })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .orderBy('id', 'desc')
        .first('id', 'code_hash', 'attempts');
      return row ? { id: row.id, codeHash: row.code_hash, attempts: row.attempts } : null;
    },

    async countEmailCodeAttempt(id: number): Promise<void> {
      await db('email_codes').where({ id }).increment('attempts', 1);
    },

    /** Marks the code used unless another request did first. */
    async useEmailCode(id: number, now: Date): Promise<boolean> {
      return (await db('email_codes').where({ id }).whereNull('used_at').update({ used_at: now })) === 1;
    },

    async insertTrustedDevice(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
      await db('trusted_devices').insert({ user_id: userId, token_hash: tokenHash, expires_at: expiresAt });
    },

    async isTrustedDevice(userId: number, tokenHash: string, now: Date): Promise<boolean> {
      const row = await db('trusted_devices')
        .where({ user_id: userId, token_hash: tokenHash })
        .where('expires_at', '>', now)
        .first('id');
      if (row) await db('trusted_devices').where({ id: row.id }).update({ last_used_at: now });
      return row !== undefined;
    },
  };
}

export type SecondFactorRepo = ReturnType<typeof createSecondFactorRepo>;
