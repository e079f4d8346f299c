/** SQL of agent settings: rows per cluster or system, their scope's customer, and a system's layers. */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

export type ScopeType = 'cluster' | 'system';

export interface Scope {
  type: ScopeType;
  id: number;
}

export interface AgentSettingRow {
  id: number;
  scope: Scope;
  key: string;
  /** Plaintext, or the secret box's sealed form when `secret`. */
  value: string;
  secret: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Where a scope belongs: its customer decides the rights; a system also names its cluster. */
export interface ScopeOwner {
  customerId: number;
  clusterId: number | null;
}

const mapRow = (row: Record<string, unknown>): AgentSettingRow => ({
  id: row['id'] as number,
  scope: { type: row['scope_type'] as ScopeType, id: row['scope_id'] as number },
  key: row['key'] as string,
  value: row['value'] as string,
  secret: row['secret'] as boolean,
  createdAt: row['created_at'] as Date,
  updatedAt: row['updated_at'] as Date,
});

const scopeColumn = (type: ScopeType) => (type === 'cluster' ? 'cluster_id' : 'system_id');

export function createAgentSettingsRepo(db: Knex) {
  /** The rows of several systems at once (their clusters' and their own) by system id; one without any is left out. */
  async function layersOfSystems(systemIds: readonly number[]): Promise<Map<number, AgentSettingRow[]>> {
    const rows: Record<string, unknown>[] = await db('agent_settings as a')
      .join('systems as s', (join) => join.on('a.system_id', 's.id').orOn('a.cluster_id', 's.cluster_id'))
      .whereIn('s.id', systemIds)
      .select('a.*', 's.id as for_system')
      .orderBy('a.key');
    const bySystem = new Map<number, AgentSettingRow[]>();
    for (const row of rows) {
      const systemId = row['for_system'] as number;
      const layers = bySystem.get(systemId);
      if (layers) layers.push(mapRow(row));
      else bySystem.set(systemId, [mapRow(row)]);
    }
    return bySystem;
  }

  return {
    /** The customer (and for a system its cluster) of a scope; null when it does not exist. */
    async findScopeOwner(scope: Scope): Promise<ScopeOwner | null> {
      if (scope.type === 'cluster') {
        const row = await db('clusters')
          .where({ id: scope.id })
          .first<{ customer_id: number } | undefined>('customer_id');
        return row ? { customerId: row.customer_id, clusterId: scope.id } : null;
      }
      const row = await db('systems')
        .where({ id: scope.id })
        .first<{ customer_id: number; cluster_id: number | null } | undefined>('customer_id', 'cluster_id');
      return row ? { customerId: row.customer_id, clusterId: row.cluster_id } : null;
    },

    async listByScope(scope: Scope): Promise<AgentSettingRow[]> {
      const rows = await db('agent_settings')
        .where({ scope_type: scope.type, [scopeColumn(scope.type)]: scope.id })
        .orderBy('key');
      return rows.map(mapRow);
    },

    transaction: transactionOf(db),

    async find(id: number, q: Knex = db): Promise<AgentSettingRow | null> {
      const row = await q('agent_settings').where({ id }).first();
      return row ? mapRow(row) : null;
    },

    /**
     * Inserts a setting whose stored value may depend on its own id (a sealed secret is bound to
     * its row): `storedValue(id)` is written in the same transaction. Null when the key is taken.
     */
    async insert(
      input: { scope: Scope; key: string; secret: boolean },
      storedValue: (id: number) => string,
      q: Knex = db,
    ): Promise<number | null> {
      return q.transaction(async (trx) => {
        const [row] = await trx('agent_settings')
          .insert({
            scope_type: input.scope.type,
            [scopeColumn(input.scope.type)]: input.scope.id,
            key: input.key,
            value: '',
            secret: input.secret,
          })
          .onConflict(['scope_type', 'scope_id', 'key'])
          .ignore()
          .returning<{ id: number }[]>('id');
        if (!row) return null;
        await trx('agent_settings')
          .where({ id: row.id })
          .update({ value: storedValue(row.id) });
        return row.id;
      });
    },

    async update(id: number, changes: { value: string; secret: boolean }, q: Knex = db): Promise<void> {
      await q('agent_settings')
        .where({ id })
        .update({ value: changes.value, secret: changes.secret, updated_at: q.fn.now() });
    },

    async delete(id: number, q: Knex = db): Promise<void> {
      await q('agent_settings').where({ id }).delete();
    },

    /** The settings of a system's cluster and of the system itself: the two layers of its effective settings. */
    async layersOfSystem(systemId: number): Promise<AgentSettingRow[]> {
      return (await layersOfSystems([systemId])).get(systemId) ?? [];
    },

    layersOfSystems,
  };
}

export type AgentSettingsRepo = ReturnType<typeof createAgentSettingsRepo>;
