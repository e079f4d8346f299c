/** SQL of the health check. */
import type { Knex } from 'knex';

export interface EvaluationOutcome {
  lastRunAt: string;
  /** 0 when the run evaluated every customer; 'all' when it failed as a whole. */
  failedCustomers: number | 'all';
  lastCompleteAt: string | null;
}

export function createHealthRepo(db: Knex) {
  return {
    async ping(): Promise<void> {
      await db.raw('SELECT 1');
    },
    /** The latest evaluation run's outcome, as the run stored it (null before the first). */
    async evaluationOutcome(): Promise<EvaluationOutcome | null> {
      const row = await db('app_settings').where({ key: 'evaluation_outcome' }).first('value');
      if (!row) return null;
      const value = row.value as { at: string; failed: number | 'all'; lastCompleteAt?: string | null };
      return { lastRunAt: value.at, failedCustomers: value.failed, lastCompleteAt: value.lastCompleteAt ?? null };
    },
  };
}

export type HealthRepo = ReturnType<typeof createHealthRepo>;
