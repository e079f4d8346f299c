/**
 * Cluster incidents: when at least half of a cluster's systems (3 or more) go offline in
 * one run or two consecutive runs, one incident "Site down: <cluster>" groups their offline alerts
 * and notifies once instead of once per system; it resolves when they have all returned.
 *
 * - incidents: at most one open per cluster.
 * - alerts.incident_id: the offline alerts an incident groups (their own raised/resolved/repeat
 *   notifications are replaced by the incident's).
 * - channel_deliveries / alert_notifications.incident_id: a notification about the incident, sent
 *   with its first alert (the delivery log lives with an alert).
 *
 * And flapping: an alert raised more often than K times in W minutes is marked `flapping_since` and
 * stays open until its condition has been clear (`clear_since`) for W/2.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE incidents (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      cluster_id integer NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
      title text NOT NULL,
      state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
      started_at timestamptz NOT NULL,
      resolved_at timestamptz,
      CHECK ((state = 'resolved') = (resolved_at IS NOT NULL))
    );
    CREATE UNIQUE INDEX incidents_open_cluster_idx ON incidents (cluster_id) WHERE state = 'open';
    CREATE INDEX incidents_customer_started_idx ON incidents (customer_id, started_at DESC);

    ALTER TABLE alerts ADD COLUMN incident_id bigint REFERENCES incidents (id) ON DELETE SET NULL;
    CREATE INDEX alerts_incident_idx ON alerts (incident_id) WHERE incident_id IS NOT NULL;
    ALTER TABLE channel_deliveries ADD COLUMN incident_id bigint REFERENCES incidents (id) ON DELETE SET NULL;
    ALTER TABLE alert_notifications ADD COLUMN incident_id bigint REFERENCES incidents (id) ON DELETE SET NULL;

    ALTER TABLE alerts ADD COLUMN flapping_since timestamptz, ADD COLUMN clear_since timestamptz;
    -- how often an identity was raised lately: the flapping count reads it
    CREATE INDEX alerts_identity_started_idx ON alerts (rule_key, system_id, instance, started_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE alert_notifications DROP COLUMN incident_id;
    ALTER TABLE channel_deliveries DROP COLUMN incident_id;
    DROP INDEX alerts_identity_started_idx;
    ALTER TABLE alerts DROP COLUMN incident_id, DROP COLUMN flapping_since, DROP COLUMN clear_since;
    DROP TABLE incidents;
  `);
}
