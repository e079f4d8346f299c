/**
 * An account can switch alert e-mails off (docs/rules.md "Notifications": "every
 * account that may see the system and has notifications on"): the minimum
 * severity gains 'NONE', above every alert severity, so no transition reaches it.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users DROP CONSTRAINT users_notify_min_severity_check;
    ALTER TABLE users ADD CONSTRAINT users_notify_min_severity_check
      CHECK (notify_min_severity IN ('INFO', 'WARNING', 'CRITICAL', 'NONE'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE users SET notify_min_severity = 'CRITICAL' WHERE notify_min_severity = 'NONE';
    ALTER TABLE users DROP CONSTRAINT users_notify_min_severity_check;
    ALTER TABLE users ADD CONSTRAINT users_notify_min_severity_check
      CHECK (notify_min_severity IN ('INFO', 'WARNING', 'CRITICAL'));
  `);
}
