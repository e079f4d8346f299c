/**
 * Which alerts count as downtime in availability reports: a flag per alert rule (and per override,
 * so a customer can decide for itself), instead of "every CRITICAL alert". On by default only where
 * the service is really unavailable: the system is offline (`system.offline`, which always counts)
 * or a monitored service is down (`service.down`). A read-only file system, a full disk or an
 * expiring certificate is a problem to fix, not an outage. Existing overrides of those two keys
 * get the flag too. Reports are computed when asked for, so every report is recomputed this way.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE alert_rules ADD COLUMN counts_as_downtime boolean NOT NULL DEFAULT false;
    UPDATE alert_rules SET counts_as_downtime = true WHERE key IN ('system.offline', 'service.down');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE alert_rules DROP COLUMN counts_as_downtime');
}
