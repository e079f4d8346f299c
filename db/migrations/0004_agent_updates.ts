/**
 * Agent updates (docs/protocol.md "Agent updates": rollout and the update-failure
 * guard). The columns are the update service's own: `systems.agent_version`
 * stays what ingest writes for the console.
 *
 * - reported_version / _since: the version the agent last reported and when it
 *   first reported it; _confirmed_at is set by a report of the same version at
 *   least 10 minutes later (a canary "has reported the new version for 10 minutes").
 * - offered_version: the build last offered in an ingest answer, until the agent
 *   reports it (or a newer one).
 * - update_failures: reports of another version since that offer, in a row;
 *   at 3 the offer becomes update_failed_version and that build is not offered
 *   again until an admin's "retry update" clears it.
 * The rollout mode lives in app_settings ('agent_rollout', {"mode": "all" | "canary"}).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE systems
      ADD COLUMN reported_version text,
      ADD COLUMN reported_version_since timestamptz,
      ADD COLUMN reported_version_confirmed_at timestamptz,
      ADD COLUMN offered_version text,
      ADD COLUMN update_failures integer NOT NULL DEFAULT 0 CHECK (update_failures >= 0),
      ADD COLUMN update_failed_version text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE systems
      DROP COLUMN update_failed_version,
      DROP COLUMN update_failures,
      DROP COLUMN offered_version,
      DROP COLUMN reported_version_confirmed_at,
      DROP COLUMN reported_version_since,
      DROP COLUMN reported_version;
  `);
}
