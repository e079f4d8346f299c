/**
 * Enrolment at MSP scale: an ADMIN's one-hour raise of a cluster's enrolment limit,
 * and the hosts whose enrolment a cluster refused (what the console shows per cluster).
 *
 * A refusal row is one per (cluster, agent): a host that retries every 30 s stays one row, so the
 * table grows with the number of refused hosts, not with their attempts; rows older than a day are
 * deleted whenever the cluster refuses again. No system row is ever made for a refused host.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE cluster_enrollment_raises (
      cluster_id integer PRIMARY KEY REFERENCES clusters (id) ON DELETE CASCADE,
      hourly_limit integer NOT NULL CHECK (hourly_limit > 0),
      expires_at timestamptz NOT NULL,
      raised_at timestamptz NOT NULL,
      raised_by text
    );
    CREATE TABLE cluster_enrollment_refusals (
      cluster_id integer NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
      agent_id text NOT NULL,
      reason text NOT NULL CHECK (reason IN ('hourly-limit', 'other-customer')),
      attempts integer NOT NULL DEFAULT 1,
      first_at timestamptz NOT NULL,
      last_at timestamptz NOT NULL,
      PRIMARY KEY (cluster_id, agent_id)
    );
    CREATE INDEX cluster_enrollment_refusals_last_idx ON cluster_enrollment_refusals (cluster_id, last_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE cluster_enrollment_refusals; DROP TABLE cluster_enrollment_raises');
}
