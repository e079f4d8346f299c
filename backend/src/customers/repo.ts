/** SQL of customers and their clusters. */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { transactionOf } from '../lib/transaction.js';

export interface CustomerRow {
  id: number;
  name: string;
  active: boolean;
  notes: string;
  timeZone: string;
  createdAt: Date;
}

export interface ClusterRow {
  id: number;
  customerId: number;
  name: string;
  enrollmentKey: string;
}

const mapCustomer = (row: Record<string, unknown>): CustomerRow => ({
  id: row['id'] as number,
  name: row['name'] as string,
  active: row['active'] as boolean,
  notes: row['notes'] as string,
  timeZone: row['time_zone'] as string,
  createdAt: row['created_at'] as Date,
});

const mapCluster = (row: Record<string, unknown>): ClusterRow => ({
  id: row['id'] as number,
  customerId: row['customer_id'] as number,
  name: row['name'] as string,
  enrollmentKey: row['enrollment_key'] as string,
});

/** `null` = every customer (ADMIN); otherwise only these ids. */

function onlyVisible(query: Knex.QueryBuilder, column: string, visible: Visible) {
  if (visible) query.whereIn(column, [...visible]);
  return query;
}

export function createCustomersRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    async listCustomers(visible: Visible): Promise<CustomerRow[]> {
      return (await onlyVisible(db('customers').select('*').orderByRaw('lower(name)'), 'id', visible)).map(mapCustomer);
    },
    async findCustomer(id: number, q: Knex = db): Promise<CustomerRow | null> {
      const row = await q('customers').where({ id }).first();
      return row ? mapCustomer(row) : null;
    },
    async nameTaken(name: string, exceptId: number | null, table: 'customers' = 'customers'): Promise<boolean> {
      const query = db(table).whereRaw('lower(name) = lower(?)', [name]);
      if (exceptId !== null) query.whereNot({ id: exceptId });
      return (await query.first('id')) !== undefined;
    },
    async insertCustomer(
      input: { name: string; notes: string; active: boolean; timeZone: string },
      q: Knex = db,
    ): Promise<number> {
      const [row] = await q('customers')
        .insert({ name: input.name, notes: input.notes, active: input.active, time_zone: input.timeZone })
        .returning<{ id: number }[]>('id');
      return (row as { id: number }).id;
    },
    async updateCustomer(
      id: number,
      changes: Partial<{ name: string; notes: string; active: boolean; timeZone: string }>,
      q: Knex = db,
    ) {
      const columns: Record<string, unknown> = {};
      if (changes.name !== undefined) columns['name'] = changes.name;
      if (changes.notes !== undefined) columns['notes'] = changes.notes;
      if (changes.active !== undefined) columns['active'] = changes.active;
      if (changes.timeZone !== undefined) columns['time_zone'] = changes.timeZone;
      if (Object.keys(columns).length)
        await q('customers')
          .where({ id })
          .update({ ...columns, updated_at: q.fn.now() });
    },
    /** Deletes the customer, its clusters and systems (cascade) and its systems' samples. */
    async deleteCustomer(id: number, q: Knex = db): Promise<void> {
      await q.transaction(async (trx) => {
        const systems = trx('systems').select('id').where({ customer_id: id });
        await trx('metrics').whereIn('system_id', systems.clone()).delete();
        // per-sample rows kept from before one row per report (docs/decisions.md "One row per report")
        const legacy = (await trx.raw("SELECT to_regclass('metrics_legacy') IS NOT NULL AS found")) as {
          rows: { found: boolean }[];
        };
        if (legacy.rows[0]?.found) await trx('metrics_legacy').whereIn('system_id', systems.clone()).delete();
        await trx('customers').where({ id }).delete();
      });
    },

    async listClusters(visible: Visible): Promise<ClusterRow[]> {
      const query = db('clusters').select('*').orderBy('customer_id').orderByRaw('lower(name)');
      return (await onlyVisible(query, 'customer_id', visible)).map(mapCluster);
    },
    async findCluster(id: number, q: Knex = db): Promise<ClusterRow | null> {
      const row = await q('clusters').where({ id }).first();
      return row ? mapCluster(row) : null;
    },
    async clusterNameTaken(customerId: number, name: string, exceptId: number | null): Promise<boolean> {
      const query = db('clusters').where({ customer_id: customerId }).whereRaw('lower(name) = lower(?)', [name]);
      if (exceptId !== null) query.whereNot({ id: exceptId });
      return (await query.first('id')) !== undefined;
    },
    async insertCluster(customerId: number, name: string, enrollmentKey: string, q: Knex = db): Promise<number> {
      const [row] = await q('clusters')
        .insert({ customer_id: customerId, name, enrollment_key: enrollmentKey })
        .returning<{ id: number }[]>('id');
      return (row as { id: number }).id;
    },
    async updateCluster(id: number, changes: { name?: string; enrollmentKey?: string }, q: Knex = db): Promise<void> {
      const columns: Record<string, unknown> = {};
      if (changes.name !== undefined) columns['name'] = changes.name;
      if (changes.enrollmentKey !== undefined) columns['enrollment_key'] = changes.enrollmentKey;
      if (Object.keys(columns).length)
        await q('clusters')
          .where({ id })
          .update({ ...columns, updated_at: q.fn.now() });
    },
    async deleteCluster(id: number, q: Knex = db): Promise<void> {
      // its systems stay with the customer, without a cluster (FK ON DELETE SET NULL)
      await q('clusters').where({ id }).delete();
    },
  };
}

export type CustomersRepo = ReturnType<typeof createCustomersRepo>;
