/** SQL of canary rollouts (migration 0021): one row per customer, architecture and version. */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

export type RolloutState = 'canary' | 'released' | 'halted';

export interface Rollout {
  id: number;
  customerId: number;
  arch: string;
  version: string;
  canarySystemId: number | null;
  state: RolloutState;
  startedAt: Date;
  changedAt: Date;
}

/** A rollout as the console lists it: with the names it shows. */
export interface RolloutListItem extends Rollout {
  customerName: string;
  canarySystemName: string | null;
}

export interface RolloutKey {
  customerId: number;
  arch: string;
  version: string;
}

const COLUMNS = [
  'agent_rollouts.id',
  'agent_rollouts.customer_id',
  'agent_rollouts.arch',
  'agent_rollouts.version',
  'agent_rollouts.canary_system_id',
  'agent_rollouts.state',
  'agent_rollouts.started_at',
  'agent_rollouts.changed_at',
];

function mapRollout(row: Record<string, unknown>): Rollout {
  return {
    id: row['id'] as number,
    customerId: row['customer_id'] as number,
    arch: row['arch'] as string,
    version: row['version'] as string,
    canarySystemId: (row['canary_system_id'] as number | null) ?? null,
    state: row['state'] as RolloutState,
    startedAt: row['started_at'] as Date,
    changedAt: row['changed_at'] as Date,
  };
}

export function createRolloutsRepo(db: Knex) {
  const table = (q: Knex) => q('agent_rollouts');

  return {
    transaction: transactionOf(db),

    async findRollout(key: RolloutKey): Promise<Rollout | null> {
      const row = await table(db)
        .where({ customer_id: key.customerId, arch: key.arch, version: key.version })
        .first(COLUMNS);
      return row ? mapRollout(row) : null;
    },

    async findRolloutById(id: number, q: Knex = db): Promise<Rollout | null> {
      const row = await table(q).where({ id }).forUpdate().first(COLUMNS);
      return row ? mapRollout(row) : null;
    },

    /**
     * The lowest id among the customer's systems of these architecture spellings that reported
     * since `recentSince` (or `selfId`, which is reporting now): the canary a rollout starts with.
     */
    async findCanaryCandidate(
      input: { customerId: number; arches: string[]; selfId: number | null; recentSince: Date },
      q: Knex = db,
    ): Promise<number | null> {
      const row = await q('systems')
        .where({ customer_id: input.customerId })
        .whereIn('arch', input.arches)
        .where((w) => {
          w.where('last_seen_at', '>=', input.recentSince);
          if (input.selfId !== null) w.orWhere('id', input.selfId);
        })
        .min<{ id: number | null }>('id as id')
        .first();
      return row?.id ?? null;
    },

    /** Starts a rollout with its canary; the row already there when a concurrent request started it first. */
    async startRollout(key: RolloutKey, canarySystemId: number, at: Date): Promise<Rollout | null> {
      const [row] = await table(db)
        .insert({
          customer_id: key.customerId,
          arch: key.arch,
          version: key.version,
          canary_system_id: canarySystemId,
          started_at: at,
          changed_at: at,
        })
        .onConflict(['customer_id', 'arch', 'version'])
        .ignore()
        .returning(COLUMNS);
      return row ? mapRollout(row) : this.findRollout(key);
    },

    /** `canary` → `released`; null when the rollout was no longer in its canary state. */
    async releaseRollout(id: number, at: Date): Promise<Rollout | null> {
      const [row] = await table(db)
        .where({ id, state: 'canary' })
        .update({ state: 'released', changed_at: at })
        .returning(COLUMNS);
      return row ? mapRollout(row) : null;
    },

    /** Halts the rollouts of `version` whose canary is `systemId` (it failed the update). */
    async haltRolloutsOfCanary(systemId: number, version: string, at: Date): Promise<Rollout[]> {
      const rows = await table(db)
        .where({ canary_system_id: systemId, version, state: 'canary' })
        .update({ state: 'halted', changed_at: at })
        .returning(COLUMNS);
      return rows.map(mapRollout);
    },

    /** Back to the canary state, with the canary given. */
    async resumeRollout(id: number, canarySystemId: number | null, at: Date, q: Knex = db): Promise<Rollout | null> {
      const [row] = await table(q)
        .where({ id })
        .update({ state: 'canary', canary_system_id: canarySystemId, changed_at: at })
        .returning(COLUMNS);
      return row ? mapRollout(row) : null;
    },

    /** The halted rollouts of `systemId` back to their canary state (its "retry update"). */
    async resumeRolloutsOfCanary(systemId: number, at: Date, q: Knex = db): Promise<Rollout[]> {
      const rows = await table(q)
        .where({ canary_system_id: systemId, state: 'halted' })
        .update({ state: 'canary', changed_at: at })
        .returning(COLUMNS);
      return rows.map(mapRollout);
    },

    /** Every rollout not yet released, then the released ones, newest change first (or only `id`). */
    async listRollouts(filter: { limit: number; id?: number }): Promise<RolloutListItem[]> {
      const rows = await table(db)
        .modify((q) => {
          if (filter.id !== undefined) q.where('agent_rollouts.id', filter.id);
        })
        .join('customers', 'customers.id', 'agent_rollouts.customer_id')
        .leftJoin('systems', 'systems.id', 'agent_rollouts.canary_system_id')
        .select([...COLUMNS, 'customers.name as customer_name', 'systems.name as canary_system_name'])
        .orderByRaw(`agent_rollouts.state = 'released', agent_rollouts.changed_at DESC, agent_rollouts.id DESC`)
        .limit(filter.limit);
      return rows.map((row: Record<string, unknown>) => ({
        ...mapRollout(row),
        customerName: row['customer_name'] as string,
        canarySystemName: (row['canary_system_name'] as string | null) ?? null,
      }));
    },
  };
}

export type RolloutsRepo = ReturnType<typeof createRolloutsRepo>;
