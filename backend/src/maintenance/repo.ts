/** SQL of maintenance windows, each with its customer's name and time zone and its scope's name. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { joinScopeTables, scopeColumns, type ScopeType } from '../scopes/repo.js';
import { transactionOf } from '../lib/transaction.js';

export interface WindowRow {
  id: number;
  customerId: number;
  customerName: string;
  timeZone: string;
  scope: { type: ScopeType; id: number; name: string | null };
  name: string;
  kind: 'once' | 'weekly';
  startsAt: Date | null;
  endsAt: Date | null;
  weekdays: number[] | null;
  startTime: string | null;
  durationMinutes: number | null;
  createdBy: { id: number; name: string } | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WindowFields {
  customerId: number;
  scopeType: ScopeType;
  scopeId: number;
  name: string;
  kind: 'once' | 'weekly';
  startsAt: string | null;
  endsAt: string | null;
  weekdays: number[] | null;
  startTime: string | null;
  durationMinutes: number | null;
}

const mapRow = (row: Record<string, unknown>): WindowRow => ({
  id: row['id'] as number,
  customerId: row['customer_id'] as number,
  customerName: row['customer_name'] as string,
  timeZone: row['time_zone'] as string,
  scope: {
    type: row['scope_type'] as ScopeType,
    id: row['scope_id'] as number,
    name: (row['scope_name'] as string | null) ?? null,
  },
  name: row['name'] as string,
  kind: row['kind'] as WindowRow['kind'],
  startsAt: (row['starts_at'] as Date | null) ?? null,
  endsAt: (row['ends_at'] as Date | null) ?? null,
  weekdays: (row['weekdays'] as number[] | null) ?? null,
  startTime: (row['start_time'] as string | null) ?? null,
  durationMinutes: (row['duration_minutes'] as number | null) ?? null,
  createdBy:
    row['created_by'] === null
      ? null
      : { id: row['created_by'] as number, name: (row['creator_name'] as string) ?? '' },
  createdAt: row['created_at'] as Date,
  updatedAt: row['updated_at'] as Date,
});

const columns = (f: WindowFields) => ({
  customer_id: f.customerId,
  scope_type: f.scopeType,
  scope_id: f.scopeId,
  name: f.name,
  kind: f.kind,
  starts_at: f.startsAt,
  ends_at: f.endsAt,
  weekdays: f.weekdays,
  start_time: f.startTime,
  duration_minutes: f.durationMinutes,
});

/**
 * Tells the history trigger the app's time of this transaction's change (transaction-local, so it
 * must run on the transaction's connection; a write without it takes the database's now()).
 */
async function stampChange(q: Knex, at: Date): Promise<void> {
  await q.raw(`SELECT set_config('argus.changed_at', ?, true)`, [at.toISOString()]);
}

export function createMaintenanceRepo(db: Knex) {
  const select = (q: Knex = db) =>
    joinScopeTables(
      q('maintenance_windows as w')
        .join('customers as c', 'c.id', 'w.customer_id')
        .leftJoin('users as u', 'u.id', 'w.created_by')
        .select('w.*', 'c.name as customer_name', 'c.time_zone', 'u.name as creator_name', ...scopeColumns(q, 'w')),
      'w',
    );
  return {
    transaction: transactionOf(db),
    async list(visible: Visible, customerId?: number): Promise<WindowRow[]> {
      const query = select().orderBy([{ column: 'c.name' }, { column: 'w.name' }, { column: 'w.id' }]);
      if (visible) query.whereIn('w.customer_id', [...visible]);
      if (customerId !== undefined) query.where('w.customer_id', customerId);
      return (await query).map(mapRow);
    },
    async find(id: number, q: Knex = db): Promise<WindowRow | null> {
      const row = await select(q).where('w.id', id).first();
      return row ? mapRow(row) : null;
    },
    /** `at` (the app's clock) is when the new definition takes force in the window's history (db/migrations/0017). */
    async insert(fields: WindowFields, createdBy: number, at: Date, q: Knex = db): Promise<number> {
      const [row] = await q('maintenance_windows')
        .insert({ ...columns(fields), created_by: createdBy, created_at: at, updated_at: at })
        .returning<{ id: number }[]>('id');
      return (row as { id: number }).id;
    },
    /** Call inside a transaction: `at` is where the history's trigger closes the old definition. */
    async update(id: number, fields: WindowFields, at: Date, q: Knex = db): Promise<void> {
      await stampChange(q, at);
      await q('maintenance_windows')
        .where({ id })
        .update({ ...columns(fields), updated_at: at });
    },
    /** Call inside a transaction: the window's past occurrences stay in its history until `at`. */
    async delete(id: number, at: Date, q: Knex = db): Promise<void> {
      await stampChange(q, at);
      await q('maintenance_windows').where({ id }).delete();
    },
  };
}

export type MaintenanceRepo = ReturnType<typeof createMaintenanceRepo>;
