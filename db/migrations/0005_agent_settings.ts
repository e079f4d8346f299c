/**
 * Agent settings (docs/operations.md "Settings edited at runtime": per cluster and per system,
 * layered cluster first, system on top; secrets encrypted at rest).
 *
 * - The scope is one cluster or one system. It is held in two foreign keys so
 *   deleting a cluster or system deletes its settings (ON DELETE CASCADE), and
 *   `scope_id` is generated from them, so (scope_type, scope_id, key) is unique.
 * - No customer_id column: a system can move to another customer, and a copy of
 *   its customer here would go stale; rights join through the scope instead.
 * - `value` of a row flagged secret is sealed by the secret box under the place
 *   `agent_settings:value:<id>` (secrets/places.ts); the start-up key check
 *   re-encrypts those rows with the other stored secrets.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE agent_settings (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      scope_type text NOT NULL CHECK (scope_type IN ('cluster', 'system')),
      cluster_id integer REFERENCES clusters (id) ON DELETE CASCADE,
      system_id integer REFERENCES systems (id) ON DELETE CASCADE,
      scope_id integer GENERATED ALWAYS AS (coalesce(cluster_id, system_id)) STORED,
      key text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_.-]{0,63}$'),
      value text NOT NULL,
      secret boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope_type = 'cluster' AND cluster_id IS NOT NULL AND system_id IS NULL)
          OR (scope_type = 'system' AND system_id IS NOT NULL AND cluster_id IS NULL)),
      UNIQUE (scope_type, scope_id, key)
    );
    CREATE INDEX agent_settings_cluster_idx ON agent_settings (cluster_id) WHERE cluster_id IS NOT NULL;
    CREATE INDEX agent_settings_system_idx ON agent_settings (system_id) WHERE system_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE agent_settings');
}
