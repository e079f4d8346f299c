/** SQL of the health check. */
import type { Knex } from 'knex';

export function createHealthRepo(db: Knex) {
  return {
    async ping(): Promise<void> {
      await db.raw('SELECT 1');
    },
  };
}

export type HealthRepo = ReturnType<typeof createHealthRepo>;
