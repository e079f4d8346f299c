/** SQL of alerts as the console reads them, and the acknowledgement. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';
import { alertOfRow, type AlertDetail } from './alert-json.js';

/** A row of the console's select (the alert, its system, customer and acknowledger). */
function alertDetailOfRow(row: Record<string, unknown>): AlertDetail {
  const acknowledgedBy = row['acknowledged_by'] as number | null;
  const acknowledgedAt = row['acknowledged_at'] as Date | null;
  const ackUntil = row['ack_until'] as Date | null;
  const incidentId = row['incident_id'] as string | number | null;
  return {
    ...alertOfRow(row),
    ruleKind: row['rule_kind'] as AlertDetail['ruleKind'],
    systemName: row['system_name'] as string,
    customerName: row['customer_name'] as string,
    customerTimeZone: row['customer_time_zone'] as string,
    acknowledgedAt: acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy:
      acknowledgedBy === null
        ? null
        : { id: acknowledgedBy, name: (row['acknowledged_by_name'] as string | null) ?? '' },
    ackNote: row['ack_note'] as string | null,
    ackUntil: ackUntil?.toISOString() ?? null,
    incidentId: incidentId === null ? null : Number(incidentId),
    flapping: row['flapping_since'] !== null,
  };
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
  const select = (q: Knex) =>
    q('alerts as a')
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
    transaction: transactionOf(db),
    /** Newest first (ids grow as alerts are raised). */
    async list(q: AlertQuery, trx: Knex = db): Promise<AlertDetail[]> {
      const query = select(trx).orderBy('a.id', 'desc').limit(q.limit);
      if (q.visible) query.whereIn('a.customer_id', [...q.visible]);
      if (q.state) query.where('a.state', q.state);
      if (q.customerId !== undefined) query.where('a.customer_id', q.customerId);
      if (q.systemId !== undefined) query.where('a.system_id', q.systemId);
      if (q.severity) query.where('a.severity', q.severity);
      if (q.before !== undefined) query.where('a.id', '<', q.before);
      return (await query).map(alertDetailOfRow);
    },
    async find(id: number, trx: Knex = db): Promise<AlertDetail | null> {
      const row = await select(trx).where('a.id', id).first();
      return row ? alertDetailOfRow(row) : null;
    },
    /**
     * Marks an open, unacknowledged alert acknowledged (until `until`, when given). One conditional
     * UPDATE, so two racing acknowledgements (or a resolve in between) cannot both succeed.
     */
    async acknowledge(
      id: number,
      ack: { userId: number; note: string | null; until: Date | null; at: Date },
      trx: Knex = db,
    ): Promise<boolean> {
      const changed = await trx('alerts')
        .where({ id, state: 'open' })
        .whereNull('acknowledged_at')
        .update({ acknowledged_at: ack.at, acknowledged_by: ack.userId, ack_note: ack.note, ack_until: ack.until });
      return changed === 1;
    },
  };
}

export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
