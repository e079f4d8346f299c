/**
 * The audit log: one row per write through the API or console, written in the
 * same transaction as the change. `actor_name` and `customer_id` are copies, not references: a row
 * outlives the account and the customer it names.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      at timestamptz NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'token', 'system')),
      actor_id bigint,
      actor_name text,
      address text,
      action text NOT NULL,
      target_type text NOT NULL,
      target_id text,
      customer_id bigint,
      before jsonb,
      after jsonb
    );
    CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
    CREATE INDEX audit_log_customer_idx ON audit_log (customer_id, at DESC);
    CREATE INDEX audit_log_actor_idx ON audit_log (actor_type, actor_id, at DESC);
    CREATE INDEX audit_log_action_idx ON audit_log (action, at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE audit_log');
}
