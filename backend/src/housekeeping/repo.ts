/** SQL of housekeeping: rows whose life is over. */
import type { Knex } from 'knex';

export function createHousekeepingRepo(db: Knex) {
  return {
    /** Deletes expired sign-in artefacts; returns how many rows of each went. */
    async deleteExpiredSignInRows(now: Date): Promise<Record<string, number>> {
      const sessions = await db('sessions')
        .where('expires_at', '<=', now)
        .orWhere('absolute_expires_at', '<=', now)
        .delete();
      const trustedDevices = await db('trusted_devices').where('expires_at', '<=', now).delete();
      const emailCodes = await db('email_codes').where('expires_at', '<=', now).delete();
      const resetTokens = await db('password_reset_tokens').where('expires_at', '<=', now).delete();
      return { sessions, trustedDevices, emailCodes, resetTokens };
    },

    /** Deletes agent events received before `before` (evaluation reads only the last minutes). */
    async deleteAgentEventsBefore(before: Date): Promise<number> {
      return db('agent_events').where('received_at', '<', before).delete();
    },
  };
}

export type HousekeepingRepo = ReturnType<typeof createHousekeepingRepo>;
