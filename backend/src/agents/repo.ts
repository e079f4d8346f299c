/** SQL of the agent endpoints and of agent updates (rollout mode, per-system update state). */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';

export interface ClusterRef {
  id: number;
  customerId: number;
  enrollmentKey: string;
}

export type RolloutMode = 'all' | 'canary';

/** The update columns of one system (migration 0004). */
export interface UpdateState {
  reportedVersion: string | null;
  reportedSince: Date | null;
  confirmedAt: Date | null;
  offeredVersion: string | null;
  failures: number;
  failedVersion: string | null;
}

export type UpdateStatePatch = Partial<UpdateState>;

const STATE_COLUMNS = [
  'reported_version',
  'reported_version_since',
  'reported_version_confirmed_at',
  'offered_version',
  'update_failures',
  'update_failed_version',
] as const;

const COLUMN_OF: Record<keyof UpdateState, (typeof STATE_COLUMNS)[number]> = {
  reportedVersion: 'reported_version',
  reportedSince: 'reported_version_since',
  confirmedAt: 'reported_version_confirmed_at',
  offeredVersion: 'offered_version',
  failures: 'update_failures',
  failedVersion: 'update_failed_version',
};

function mapState(row: Record<string, unknown>): UpdateState {
  return {
    reportedVersion: (row['reported_version'] as string | null) ?? null,
    reportedSince: (row['reported_version_since'] as Date | null) ?? null,
    confirmedAt: (row['reported_version_confirmed_at'] as Date | null) ?? null,
    offeredVersion: (row['offered_version'] as string | null) ?? null,
    failures: Number(row['update_failures'] ?? 0),
    failedVersion: (row['update_failed_version'] as string | null) ?? null,
  };
}

function mapCluster(row: Record<string, unknown>): ClusterRef {
  return {
    id: row['id'] as number,
    customerId: row['customer_id'] as number,
    enrollmentKey: row['enrollment_key'] as string,
  };
}

const ROLLOUT_KEY = 'agent_rollout';

export function createAgentsRepo(db: Knex) {
  return {
    async findClusterByEnrollmentKey(key: string): Promise<ClusterRef | null> {
      const row = await db('clusters').where({ enrollment_key: key }).first('id', 'customer_id', 'enrollment_key');
      return row ? mapCluster(row) : null;
    },

    async findClusterById(id: number): Promise<ClusterRef | null> {
      const row = await db('clusters').where({ id }).first('id', 'customer_id', 'enrollment_key');
      return row ? mapCluster(row) : null;
    },

    async findUpdateState(systemId: number): Promise<UpdateState | null> {
      const row = await db('systems')
        .where({ id: systemId })
        .first(...STATE_COLUMNS);
      return row ? mapState(row) : null;
    },

    async updateUpdateState(systemId: number, patch: UpdateStatePatch): Promise<UpdateState | null> {
      const columns: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(patch)) columns[COLUMN_OF[key as keyof UpdateState]] = value;
      const [row] = await db('systems').where({ id: systemId }).update(columns).returning(STATE_COLUMNS);
      return row ? mapState(row) : null;
    },

    /**
     * One more report of another version while `offered` is on offer, counted in
     * SQL so concurrent requests of one agent cannot lose a count. At `limit` the
     * offer turns into update_failed_version. Null when the offer has changed meanwhile.
     */
    async countUpdateFailure(systemId: number, offered: string, limit: number): Promise<UpdateState | null> {
      const reached = 'update_failures + 1 >= ?';
      const [row] = await db('systems')
        .where({ id: systemId, offered_version: offered })
        .update({
          update_failures: db.raw('update_failures + 1'),
          update_failed_version: db.raw(`CASE WHEN ${reached} THEN offered_version ELSE update_failed_version END`, [
            limit,
          ]),
          offered_version: db.raw(`CASE WHEN ${reached} THEN NULL ELSE offered_version END`, [limit]),
        })
        .returning(STATE_COLUMNS);
      return row ? mapState(row) : null;
    },

    /** "Retry update": the failed build may be offered again. False when the system does not exist. */
    transaction: transactionOf(db),

    async clearUpdateFailure(systemId: number, q: Knex = db): Promise<UpdateState | null> {
      const [row] = await q('systems')
        .where({ id: systemId })
        .update({ update_failed_version: null, update_failures: 0, offered_version: null })
        .returning(STATE_COLUMNS);
      return row ? mapState(row) : null;
    },

    async findRolloutMode(q: Knex = db): Promise<RolloutMode | null> {
      const row = await q('app_settings')
        .where({ key: ROLLOUT_KEY })
        .first<{ value: { mode?: unknown } } | undefined>('value');
      const mode = row?.value.mode;
      return mode === 'all' || mode === 'canary' ? mode : null;
    },

    async saveRolloutMode(mode: RolloutMode, q: Knex = db): Promise<void> {
      await q('app_settings')
        .insert({ key: ROLLOUT_KEY, value: JSON.stringify({ mode }), updated_at: q.fn.now() })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },
  };
}

export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
