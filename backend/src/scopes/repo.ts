/** SQL that resolves a rule's or window's scope (customer, cluster or system) to its customer. */
import type { Knex } from 'knex';

export type ScopeType = 'customer' | 'cluster' | 'system';

export interface ScopeTarget {
  type: ScopeType;
  id: number;
  customerId: number;
  name: string;
}

/**
 * Columns naming the customer and display name of a scope, for a table aliased
 * `alias` with scope_type/scope_id columns; pair with `joinScopeTables`.
 */
export function scopeColumns(db: Knex, alias: string): Knex.Raw[] {
  return [
    db.raw(
      `CASE ${alias}.scope_type WHEN 'customer' THEN sc_cu.id WHEN 'cluster' THEN sc_cl.customer_id
         WHEN 'system' THEN sc_sy.customer_id END AS scope_customer_id`,
    ),
    db.raw(
      `CASE ${alias}.scope_type WHEN 'customer' THEN sc_cu.name WHEN 'cluster' THEN sc_cl.name
         WHEN 'system' THEN sc_sy.name END AS scope_name`,
    ),
  ];
}

export function joinScopeTables(query: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  return query
    .leftJoin('customers as sc_cu', function () {
      this.onVal(`${alias}.scope_type`, '=', 'customer').andOn('sc_cu.id', '=', `${alias}.scope_id`);
    })
    .leftJoin('clusters as sc_cl', function () {
      this.onVal(`${alias}.scope_type`, '=', 'cluster').andOn('sc_cl.id', '=', `${alias}.scope_id`);
    })
    .leftJoin('systems as sc_sy', function () {
      this.onVal(`${alias}.scope_type`, '=', 'system').andOn('sc_sy.id', '=', `${alias}.scope_id`);
    });
}

export function createScopeRepo(db: Knex) {
  return {
    /** The scope's row, or null when it does not exist. */
    async find(type: ScopeType, id: number): Promise<ScopeTarget | null> {
      const table = type === 'customer' ? 'customers' : type === 'cluster' ? 'clusters' : 'systems';
      const customerColumn = type === 'customer' ? 'id' : 'customer_id';
      const row = await db(table)
        .where({ id })
        .first<{ name: string; customer_id: number } | undefined>('name', `${customerColumn} as customer_id`);
      return row ? { type, id, customerId: row.customer_id, name: row.name } : null;
    },
  };
}

export type ScopeRepo = ReturnType<typeof createScopeRepo>;
