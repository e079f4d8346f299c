/**
 * Ingest: the newest value of every (system, metric, instance), so evaluation
 * reads one small table instead of scanning history (docs/rules.md "The evaluation run":
 * "no sample history scan per run"), and the events agents send with their
 * reports (event rules read them).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Updated by every stored report, newest ts wins. fillfactor leaves room for
    -- HOT updates: time and value change on every report, the key never does.
    CREATE TABLE metric_latest (
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      name text NOT NULL,
      instance text NOT NULL DEFAULT '',
      time timestamptz NOT NULL,
      value double precision NOT NULL,
      PRIMARY KEY (system_id, name, instance)
    ) WITH (fillfactor = 70);

    -- One row per event of a report; a replayed report stores its events once.
    CREATE TABLE agent_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      time timestamptz NOT NULL,
      type text NOT NULL,
      severity text NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'CRITICAL')),
      message text NOT NULL DEFAULT '',
      received_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX agent_events_dedupe_idx ON agent_events (system_id, time, type, md5(message));
    CREATE INDEX agent_events_received_idx ON agent_events (received_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE agent_events, metric_latest');
}
