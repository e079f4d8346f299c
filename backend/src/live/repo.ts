/** SQL the live channel needs beyond other features' services: the open-alert counts of `alerts.counts`. */
import type { Knex } from 'knex';
import type { AlertCounts } from '../../../contracts/live.js';

export function createLiveRepo(db: Knex) {
  return {
    /** Open alerts of the visible customers (null: all of them). */
    async openAlertCounts(visible: ReadonlySet<number> | null): Promise<AlertCounts> {
      const query = db('alerts')
        .where('state', 'open')
        .first(
          db.raw('count(*)::int AS open'),
          db.raw("count(*) FILTER (WHERE severity = 'CRITICAL')::int AS critical"),
          db.raw("count(*) FILTER (WHERE severity = 'WARNING')::int AS warning"),
          db.raw("count(*) FILTER (WHERE severity = 'INFO')::int AS info"),
          db.raw('count(*) FILTER (WHERE acknowledged_at IS NULL)::int AS unacknowledged'),
        );
      if (visible) query.whereIn('customer_id', [...visible]);
      const row = (await query) as AlertCounts | undefined;
      return {
        open: row?.open ?? 0,
        critical: row?.critical ?? 0,
        warning: row?.warning ?? 0,
        info: row?.info ?? 0,
        unacknowledged: row?.unacknowledged ?? 0,
      };
    },

    /** The customer of each of these systems (a system that no longer exists is left out). */
    async customersOfSystems(ids: readonly number[]): Promise<Map<number, number>> {
      const rows = await db('systems')
        .whereIn('id', [...ids])
        .select<{ id: number; customer_id: number }[]>('id', 'customer_id');
      return new Map(rows.map((row) => [row.id, row.customer_id]));
    },
  };
}

export type LiveRepo = ReturnType<typeof createLiveRepo>;
