/** SQL of alerts as the console reads them, and the acknowledgement. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import type { AlertRow } from './alert-json.js';

export interface AlertDetailRow extends AlertRow {
  rule_kind: string;
  system_name: string;
  customer_name: string;
  customer_time_zone: string;
  acknowledged_by: number | null;
  acknowledged_by_name: string | null;
  ack_note: string | null;
  ack_until: Date | null;
  incident_id: string | number | null;
  flapping_since: Date | null;
}

export interface AlertQuery {
  visible: Visible;
  state?: 'open' | 'resolved' | undefined;
  customerId?: number | undefined;
  systemId?: number | undefined;
  severity?: string | undefined;
  /** Keyset paging: only alerts with a smaller id (the last id of the previous page). */
  before?: number | undefined;
  limit: number;
}

export function createAlertsRepo(db: Knex) {
  const select = () =>
    db('alerts as a')
      .join('systems as s', 's.id', 'a.system_id')
      .join('customers as c', 'c.id', 'a.customer_id')
      .leftJoin('users as u', 'u.id', 'a.acknowledged_by')
      .select(
        'a.*',
        's.name as system_name',
        'c.name as customer_name',
        'c.time_zone as customer_time_zone',
        'u.name as acknowledged_by_name',
      );

  return {
    /** Newest first (ids grow as alerts are raised). */
    async list(q: AlertQuery): Promise<AlertDetailRow[]> {
      const query = select().orderBy('a.id', 'desc').limit(q.limit);
      if (q.visible) query.whereIn('a.customer_id', [...q.visible]);
      if (q.state) query.where('a.state', q.state);
      if (q.customerId !== undefined) query.where('a.customer_id', q.customerId);
      if (q.systemId !== undefined) query.where('a.system_id', q.systemId);
      if (q.severity) query.where('a.severity', q.severity);
      if (q.before !== undefined) query.where('a.id', '<', q.before);
      return query;
    },
    async find(id: number): Promise<AlertDetailRow | null> {
      return (await select().where('a.id', id).first()) ?? null;
    },
    /**
     * Marks an open, unacknowledged alert acknowledged (until `until`, when given). One conditional
     * UPDATE, so two racing acknowledgements (or a resolve in between) cannot both succeed; `within`
     * runs in the same transaction (the notifications it causes are queued exactly when it commits).
     */
    async acknowledge(
      id: number,
      ack: { userId: number; note: string | null; until: Date | null; at: Date },
      within?: (trx: Knex.Transaction) => Promise<void>,
    ): Promise<boolean> {
      return db.transaction(async (trx) => {
        const changed = await trx('alerts')
          .where({ id, state: 'open' })
          .whereNull('acknowledged_at')
          .update({ acknowledged_at: ack.at, acknowledged_by: ack.userId, ack_note: ack.note, ack_until: ack.until });
        if (changed !== 1) return false;
        await within?.(trx);
        return true;
      });
    },
  };
}

export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
