/**
 * The fleet-wide incident: when more than half of the systems that reported in the last 10 minutes
 * (and at least 50) go silent in one run, it is most likely Argus's own network or ingest path that
 * failed, not the systems. One incident "Argus receives no reports from N systems" for the
 * administrators groups their offline alerts (their own notifications are held); the per-cluster
 * incidents still group each cluster's systems for its customer.
 *
 * - incidents.kind: 'cluster' (a customer's cluster, as before) or 'fleet' (no customer, no
 *   cluster); at most one open fleet incident.
 * - alerts.fleet_incident_id: the fleet incident an offline alert belongs to (beside its cluster
 *   incident, if any).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE incidents
      ADD COLUMN kind text NOT NULL DEFAULT 'cluster' CHECK (kind IN ('cluster', 'fleet')),
      ALTER COLUMN customer_id DROP NOT NULL,
      ALTER COLUMN cluster_id DROP NOT NULL,
      ADD CONSTRAINT incidents_kind_scope_check
        CHECK ((kind = 'cluster') = (customer_id IS NOT NULL AND cluster_id IS NOT NULL));
    CREATE UNIQUE INDEX incidents_open_fleet_idx ON incidents (kind) WHERE state = 'open' AND kind = 'fleet';

    ALTER TABLE alerts ADD COLUMN fleet_incident_id bigint REFERENCES incidents (id) ON DELETE SET NULL;
    CREATE INDEX alerts_fleet_incident_idx ON alerts (fleet_incident_id) WHERE fleet_incident_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE alerts DROP COLUMN fleet_incident_id;
    DELETE FROM incidents WHERE kind = 'fleet';
    DROP INDEX incidents_open_fleet_idx;
    ALTER TABLE incidents DROP CONSTRAINT incidents_kind_scope_check,
      ALTER COLUMN customer_id SET NOT NULL, ALTER COLUMN cluster_id SET NOT NULL, DROP COLUMN kind;
  `);
}
