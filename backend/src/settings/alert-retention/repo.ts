/** SQL of the alert retention: its setting in app_settings and the deletion of old resolved alerts. */
import type { Knex } from 'knex';
import { transactionOf } from '../../lib/transaction.js';

const KEY = 'alert_retention';
const BATCH = 5_000;

export function createAlertRetentionRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    async findDays(q: Knex = db): Promise<number | null> {
      const row = await q('app_settings').where({ key: KEY }).first<{ value: { days?: unknown } } | undefined>('value');
      const days = row?.value?.days;
      return typeof days === 'number' && Number.isInteger(days) && days >= 0 ? days : null;
    },
    async saveDays(days: number, q: Knex = db): Promise<void> {
      await q('app_settings')
        .insert({ key: KEY, value: JSON.stringify({ days }), updated_at: q.fn.now() })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },
    /**
     * Deletes resolved alerts resolved before `cutoff`, in batches so a first run
     * over years of history holds no long lock. Open alerts are never touched.
     */
    async deleteResolvedBefore(cutoff: Date): Promise<number> {
      let total = 0;
      for (;;) {
        const deleted = await db('alerts')
          .whereIn(
            'id',
            db('alerts').select('id').where('state', 'resolved').where('resolved_at', '<', cutoff).limit(BATCH),
          )
          .delete();
        total += deleted;
        if (deleted < BATCH) break;
      }
      // an incident outlives its alerts only as long as one of them is kept
      await db('incidents')
        .where('state', 'resolved')
        .where('resolved_at', '<', cutoff)
        .whereNotExists(db('alerts').select(db.raw('1')).whereRaw('alerts.incident_id = incidents.id'))
        .delete();
      return total;
    },
  };
}

export type AlertRetentionRepo = ReturnType<typeof createAlertRetentionRepo>;
