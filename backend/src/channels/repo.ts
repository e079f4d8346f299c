/** SQL of notification channels and routing policies (migration 0010). */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import type { ChannelType, PolicyInput, Severity } from './schema.js';
import { transactionOf } from '../lib/transaction.js';

export interface ChannelRow {
  id: number;
  customerId: number | null;
  customerName: string | null;
  name: string;
  type: ChannelType;
  /** Sealed for URL types; `accounts` or addresses for e-mail. */
  target: string;
  targetHint: string;
  /** Sealed. */
  secret: string | null;
  minSeverity: Severity;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface PolicyRow {
  customerId: number | null;
  customerName: string | null;
  routes: { minSeverity: Severity; channelIds: number[] }[];
  repeatMinutes: number | null;
  escalateAfterMinutes: number | null;
  escalateChannelIds: number[];
  updatedAt: Date;
}

export interface ChannelFields {
  name: string;
  type: ChannelType;
  customerId: number | null;
  targetHint: string;
  minSeverity: Severity;
  enabled: boolean;
}

const channelColumns = [
  'ch.id',
  'ch.customer_id as customerId',
  'c.name as customerName',
  'ch.name',
  'ch.type',
  'ch.target',
  'ch.target_hint as targetHint',
  'ch.secret',
  'ch.min_severity as minSeverity',
  'ch.enabled',
  'ch.created_at as createdAt',
  'ch.updated_at as updatedAt',
];

const policyColumns = [
  'p.customer_id as customerId',
  'c.name as customerName',
  'p.routes',
  'p.repeat_minutes as repeatMinutes',
  'p.escalate_after_minutes as escalateAfterMinutes',
  'p.escalate_channel_ids as escalateChannelIds',
  'p.updated_at as updatedAt',
];

/** Seals need the row's id (it is part of the place), so inserts and target changes take a function of it. */
export type SealFor = (id: number) => { target: string; secret: string | null };

export function createChannelsRepo(db: Knex) {
  const channels = (q: Knex = db) =>
    q('notification_channels as ch').leftJoin('customers as c', 'c.id', 'ch.customer_id');
  const policies = (q: Knex = db) =>
    q('notification_policies as p').leftJoin('customers as c', 'c.id', 'p.customer_id');

  return {
    transaction: transactionOf(db),

    /** Global channels and those of visible customers (optionally one customer's and the global ones). */
    async list(visible: Visible, customerId?: number): Promise<ChannelRow[]> {
      const query = channels()
        .select<ChannelRow[]>(channelColumns)
        .orderByRaw('ch.customer_id NULLS FIRST, ch.name, ch.id');
      if (visible) query.where((q) => q.whereNull('ch.customer_id').orWhereIn('ch.customer_id', [...visible]));
      if (customerId !== undefined)
        query.where((q) => q.whereNull('ch.customer_id').orWhere('ch.customer_id', customerId));
      return query;
    },

    async find(id: number, q: Knex = db): Promise<ChannelRow | undefined> {
      return channels(q).select<ChannelRow[]>(channelColumns).where('ch.id', id).first();
    },

    /** The channels among `ids` (for checking the ids a policy names). */
    async findMany(ids: readonly number[]): Promise<{ id: number; customerId: number | null }[]> {
      if (!ids.length) return [];
      return db('notification_channels').whereIn('id', ids).select('id', 'customer_id as customerId');
    },

    async insert(fields: ChannelFields, seal: SealFor, q: Knex = db): Promise<number> {
      return q.transaction(async (trx) => {
        const [row] = await trx('notification_channels')
          .insert({
            customer_id: fields.customerId,
            name: fields.name,
            type: fields.type,
            target: '',
            target_hint: fields.targetHint,
            min_severity: fields.minSeverity,
            enabled: fields.enabled,
          })
          .returning<{ id: number }[]>('id');
        const id = (row as { id: number }).id;
        await trx('notification_channels').where({ id }).update(seal(id));
        return id;
      });
    },

    async update(
      id: number,
      changes: Partial<Pick<ChannelFields, 'name' | 'minSeverity' | 'enabled' | 'targetHint'>> & {
        target?: string;
        secret?: string | null;
      },
      q: Knex = db,
    ): Promise<void> {
      const row: Record<string, unknown> = { updated_at: q.fn.now() };
      if (changes.name !== undefined) row['name'] = changes.name;
      if (changes.minSeverity !== undefined) row['min_severity'] = changes.minSeverity;
      if (changes.enabled !== undefined) row['enabled'] = changes.enabled;
      if (changes.targetHint !== undefined) row['target_hint'] = changes.targetHint;
      if (changes.target !== undefined) row['target'] = changes.target;
      if (changes.secret !== undefined) row['secret'] = changes.secret;
      await q('notification_channels').where({ id }).update(row);
    },

    /** Deletes the channel and takes it out of every policy, in one transaction; returns the policies' customers. */
    async delete(id: number, q: Knex = db): Promise<(number | null)[]> {
      return q.transaction(async (trx) => {
        const touched = await trx.raw<{ rows: { customer_id: number | null }[] }>(
          `UPDATE notification_policies p
              SET routes = coalesce((SELECT jsonb_agg(jsonb_set(r, '{channelIds}',
                                       coalesce((SELECT jsonb_agg(c) FROM jsonb_array_elements(r->'channelIds') c
                                                  WHERE c::int <> ?), '[]'::jsonb)))
                                       FROM jsonb_array_elements(p.routes) r), '[]'::jsonb),
                  escalate_channel_ids = array_remove(p.escalate_channel_ids, ?),
                  updated_at = now()
            WHERE p.escalate_channel_ids @> ARRAY[?]::int[]
               OR EXISTS (SELECT 1 FROM jsonb_array_elements(p.routes) r WHERE r->'channelIds' @> to_jsonb(?::int))
        RETURNING p.customer_id`,
          [id, id, id, id],
        );
        await trx('notification_channels').where({ id }).delete();
        return touched.rows.map((r) => r.customer_id);
      });
    },

    /** The global policy (customerId null) or a customer's own; undefined when it has none. */
    async findPolicy(customerId: number | null, q: Knex = db): Promise<PolicyRow | undefined> {
      const query = policies(q).select<PolicyRow[]>(policyColumns);
      if (customerId === null) query.whereNull('p.customer_id');
      else query.where('p.customer_id', customerId);
      return query.first();
    },

    async listPolicies(visible: Visible): Promise<PolicyRow[]> {
      const query = policies().select<PolicyRow[]>(policyColumns).orderByRaw('p.customer_id NULLS FIRST, c.name');
      if (visible) query.where((q) => q.whereNull('p.customer_id').orWhereIn('p.customer_id', [...visible]));
      return query;
    },

    /** One statement: two concurrent saves of the same policy cannot both insert. */
    async savePolicy(customerId: number | null, policy: PolicyInput, q: Knex = db): Promise<void> {
      await q.raw(
        `INSERT INTO notification_policies
                (customer_id, routes, repeat_minutes, escalate_after_minutes, escalate_channel_ids, updated_at)
         VALUES (?, ?::jsonb, ?, ?, ?::int[], now())
         ON CONFLICT ((coalesce(customer_id, 0))) DO UPDATE
            SET routes = EXCLUDED.routes, repeat_minutes = EXCLUDED.repeat_minutes,
                escalate_after_minutes = EXCLUDED.escalate_after_minutes,
                escalate_channel_ids = EXCLUDED.escalate_channel_ids, updated_at = now()`,
        [
          customerId,
          JSON.stringify(policy.routes),
          policy.repeatMinutes,
          policy.escalateAfterMinutes,
          policy.escalateChannelIds,
        ],
      );
    },

    async deletePolicy(customerId: number, q: Knex = db): Promise<boolean> {
      return (await q('notification_policies').where({ customer_id: customerId }).delete()) > 0;
    },

    /** The customer's name; null when there is no such customer. */
    async customerName(customerId: number): Promise<string | null> {
      const row = await db('customers').where({ id: customerId }).first<{ name: string } | undefined>('name');
      return row?.name ?? null;
    },
  };
}

export type ChannelsRepo = ReturnType<typeof createChannelsRepo>;
