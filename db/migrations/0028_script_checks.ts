/**
 * Script checks (docs/protocol.md "Script checks and drop-in metrics"): each system's checks as
 * its agent last reported them, one row per (system, check): the state, the message (the first line
 * of the check's output), when the agent ran it and the report that said so. The states also arrive
 * as the series `script.state{check}`, which the rules read; this row holds the text the series
 * cannot: the alert's message and the system page's list. Their default rules are seeded at start-up
 * by ensureScriptRules (db/seed-rules.ts), on new and upgraded instances alike.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE script_checks (
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      name text NOT NULL,
      state text NOT NULL CHECK (state IN ('OK', 'WARNING', 'CRITICAL', 'UNKNOWN')),
      message text NOT NULL,
      ran_at timestamptz NOT NULL,
      -- the time of the report that carried this state: an older report never overwrites a newer one
      reported_at timestamptz NOT NULL,
      PRIMARY KEY (system_id, name)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE script_checks');
}
