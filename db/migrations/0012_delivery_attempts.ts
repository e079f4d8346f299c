/**
 * The delivery log keeps every attempt (docs/rules.md "Notifications": "every notification attempt … stored with
 * the alert"): besides the latest status, an `attempt_log` of `{at, status, error}` per try, for
 * channel deliveries and account e-mails alike.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE channel_deliveries ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]';
    ALTER TABLE alert_notifications ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE channel_deliveries DROP COLUMN attempt_log;
    ALTER TABLE alert_notifications DROP COLUMN attempt_log;
  `);
}
