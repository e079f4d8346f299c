/** SQL of the audit log: one insert inside the caller's transaction, a keyset-paged list, the purge. */
import { escapeLike } from '../lib/like.js';
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';

export interface AuditRow {
  id: number;
  at: Date;
  actorType: 'user' | 'token' | 'system';
  actorId: number | null;
  actorName: string | null;
  address: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  customerId: number | null;
  before: unknown;
  after: unknown;
}

export type NewAuditRow = Omit<AuditRow, 'id'>;

export interface AuditFilters {
  /** `system`, `user:<id>`, `token:<id>`, or part of the actor's name (case-insensitive). */
  actor?: string | undefined;
  customerId?: number | undefined;
  /** An action, or its leading part: `customer` matches `customer.create` and `customer.delete`. */
  action?: string | undefined;
  /** A target type, or `type:id`. */
  target?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** The last row of the previous page: rows strictly older in (at, id) order. */
  after?: { at: Date; id: number } | undefined;
}

const toRow = (row: Record<string, unknown>): AuditRow => ({
  id: Number(row['id']),
  at: row['at'] as Date,
  actorType: row['actor_type'] as AuditRow['actorType'],
  actorId: row['actor_id'] === null ? null : Number(row['actor_id']),
  actorName: row['actor_name'] as string | null,
  address: row['address'] as string | null,
  action: row['action'] as string,
  targetType: row['target_type'] as string,
  targetId: row['target_id'] as string | null,
  customerId: row['customer_id'] === null ? null : Number(row['customer_id']),
  before: row['before'],
  after: row['after'],
});

function applyFilters(query: Knex.QueryBuilder, filters: AuditFilters, visible: Visible) {
  if (visible) query.whereIn('customer_id', [...visible]);
  const actor = filters.actor;
  if (actor !== undefined) {
    const byId = /^(user|token):(\d+)$/.exec(actor);
    if (actor === 'system') query.where({ actor_type: 'system' });
    else if (byId) query.where({ actor_type: byId[1], actor_id: Number(byId[2]) });
    else query.whereRaw(`actor_name ILIKE ? ESCAPE '\\'`, [`%${escapeLike(actor)}%`]);
  }
  if (filters.customerId !== undefined) query.where({ customer_id: filters.customerId });
  if (filters.action !== undefined) {
    const action = filters.action;
    query.where((q) => q.where({ action }).orWhereRaw(`action LIKE ? ESCAPE '\\'`, [`${escapeLike(action)}.%`]));
  }
  if (filters.target !== undefined) {
    const [type, ...id] = filters.target.split(':');
    query.where({ target_type: type });
    if (id.length) query.where({ target_id: id.join(':') });
  }
  if (filters.from) query.where('at', '>=', filters.from);
  if (filters.to) query.where('at', '<', filters.to);
  if (filters.after) query.whereRaw('(at, id) < (?, ?)', [filters.after.at, filters.after.id]);
  return query;
}

export function createAuditRepo(db: Knex) {
  return {
    transaction: transactionOf(db),

    async insert(row: NewAuditRow, trx: Knex = db): Promise<void> {
      await trx('audit_log').insert({
        at: row.at,
        actor_type: row.actorType,
        actor_id: row.actorId,
        actor_name: row.actorName,
        address: row.address,
        action: row.action,
        target_type: row.targetType,
        target_id: row.targetId,
        customer_id: row.customerId,
        before: row.before === null ? null : JSON.stringify(row.before),
        after: row.after === null ? null : JSON.stringify(row.after),
      });
    },

    /** Newest first; `limit` rows (the caller asks one more to know whether a next page exists). */
    async list(filters: AuditFilters, visible: Visible, limit: number): Promise<AuditRow[]> {
      const query = db('audit_log')
        .select('*')
        .orderBy([
          { column: 'at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
      return (await applyFilters(query, filters, visible).limit(limit)).map(toRow);
    },

    async purgeOlderThan(cutoff: Date): Promise<number> {
      return db('audit_log').where('at', '<', cutoff).delete();
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
