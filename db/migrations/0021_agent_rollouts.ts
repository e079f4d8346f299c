/**
 * Canary rollouts kept as rows (docs/decisions.md "Rollouts widen only on the canary's own
 * report"): one row per customer, architecture and version in canary mode.
 *
 * - `canary_system_id`: the system chosen as the canary when the version was first asked for at
 *   this customer. Only this system's report of the version releases the rest; a canary that goes
 *   quiet is not replaced by another (a quiet canary may be one the update broke).
 * - `state`: `canary` (only the canary is offered the build), `released` (everyone is), `halted`
 *   (the canary failed the update: nobody is offered it until an administrator resumes).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE agent_rollouts (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      arch text NOT NULL,
      version text NOT NULL,
      canary_system_id integer REFERENCES systems (id) ON DELETE SET NULL,
      state text NOT NULL DEFAULT 'canary' CHECK (state IN ('canary', 'released', 'halted')),
      started_at timestamptz NOT NULL DEFAULT now(),
      changed_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (customer_id, arch, version)
    );
    CREATE INDEX agent_rollouts_canary_idx ON agent_rollouts (canary_system_id) WHERE canary_system_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE agent_rollouts');
}
