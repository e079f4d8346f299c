/**
 * Maintenance windows (docs/rules.md "Suppression: maintenance windows and inactive customers"): while one covers a system,
 * no alert is raised and no notification sent for it.
 *
 * - scope: the whole customer, one cluster or one system (scope_id is that row's id;
 *   customer_id is always filled so rights and listing need no join).
 * - kind 'once': [starts_at, ends_at) in absolute time.
 * - kind 'weekly': on each weekday in `weekdays` (0 = Sunday … 6 = Saturday), from
 *   local time `start_time` ('HH:MM') for `duration_minutes`, in the customer's time
 *   zone, so a window at 02:00 stays at 02:00 local across a DST change.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE maintenance_windows (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      scope_type text NOT NULL CHECK (scope_type IN ('customer', 'cluster', 'system')),
      scope_id integer NOT NULL,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('once', 'weekly')),
      starts_at timestamptz,
      ends_at timestamptz,
      weekdays smallint[],
      start_time text CHECK (start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      duration_minutes integer CHECK (duration_minutes > 0 AND duration_minutes <= 10080),
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (kind <> 'once' OR (starts_at IS NOT NULL AND ends_at IS NOT NULL AND ends_at > starts_at)),
      CHECK (kind <> 'weekly' OR (weekdays IS NOT NULL AND cardinality(weekdays) > 0
        AND start_time IS NOT NULL AND duration_minutes IS NOT NULL))
    );
    CREATE INDEX maintenance_windows_customer_idx ON maintenance_windows (customer_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE maintenance_windows');
}
