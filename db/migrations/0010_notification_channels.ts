/**
 * Notification channels and routing (docs/api.md "Notification channels and routing"):
 *
 * - notification_channels: where notifications go. A URL target (webhook, Slack, Teams, Discord,
 *   ntfy) holds a token, so it is sealed (place `notification_channels:target:<id>`), as is the
 *   optional signing secret; an `email` target is `accounts` or a list of addresses, kept plain.
 * - notification_policies: per customer (and one global row, customer_id NULL) severity → channels,
 *   repeat and escalation.
 * - channel_deliveries: the outbox and delivery log of channel sends, kept as long as the alert.
 * - alerts gain ack_until (an acknowledgement's expiry) and what repeat and escalation need.
 * - alert_notifications (the account e-mails) takes the new events and is kept with its alert.
 *
 * A new installation and an existing one route as before channels existed: one global channel
 * "Accounts who may see it" and a global policy sending every severity to it.
 */
import type { Knex } from 'knex';

const SEVERITIES = `('INFO', 'WARNING', 'CRITICAL')`;
const EVENTS = `('raised', 'resolved', 'acknowledged', 'repeat', 'escalated', 'flapping')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE notification_channels (
      id serial PRIMARY KEY,
      customer_id integer REFERENCES customers (id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('email', 'webhook', 'slack', 'teams', 'discord', 'ntfy')),
      target text NOT NULL,
      target_hint text NOT NULL DEFAULT '',
      secret text,
      min_severity text NOT NULL DEFAULT 'INFO' CHECK (min_severity IN ${SEVERITIES}),
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX notification_channels_customer_idx ON notification_channels (customer_id);

    CREATE TABLE notification_policies (
      id serial PRIMARY KEY,
      customer_id integer REFERENCES customers (id) ON DELETE CASCADE,
      routes jsonb NOT NULL DEFAULT '[]',
      repeat_minutes integer CHECK (repeat_minutes BETWEEN 1 AND 10080),
      escalate_after_minutes integer CHECK (escalate_after_minutes BETWEEN 1 AND 10080),
      escalate_channel_ids integer[] NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- one policy per customer and one global (NULL) row
    CREATE UNIQUE INDEX notification_policies_customer_idx ON notification_policies ((coalesce(customer_id, 0)));

    CREATE TABLE channel_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      alert_id bigint NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
      channel_id integer REFERENCES notification_channels (id) ON DELETE SET NULL,
      -- the log outlives a deleted channel
      channel_name text NOT NULL,
      channel_type text NOT NULL,
      event text NOT NULL CHECK (event IN ${EVENTS}),
      -- X-Argus-Delivery: the same on every retry
      delivery_id uuid NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'dropped')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      last_status integer,
      last_error text,
      created_at timestamptz NOT NULL,
      last_attempt_at timestamptz,
      sent_at timestamptz
    );
    CREATE INDEX channel_deliveries_pending_idx ON channel_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX channel_deliveries_alert_idx ON channel_deliveries (alert_id);

    ALTER TABLE alerts
      ADD COLUMN ack_until timestamptz,
      -- the last raised/repeat notification: the next repeat is due repeat_minutes after it
      ADD COLUMN notified_at timestamptz,
      ADD COLUMN escalated_at timestamptz;

    ALTER TABLE alert_notifications DROP CONSTRAINT alert_notifications_kind_check;
    ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_kind_check CHECK (kind IN ${EVENTS});
    CREATE INDEX alert_notifications_alert_idx ON alert_notifications (alert_id);
  `);
  const [accounts] = await knex('notification_channels')
    .insert({ name: 'Accounts who may see it', type: 'email', target: 'accounts', target_hint: 'accounts' })
    .returning<{ id: number }[]>('id');
  await knex('notification_policies').insert({
    customer_id: null,
    routes: JSON.stringify([{ minSeverity: 'INFO', channelIds: [accounts?.id] }]),
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM alert_notifications WHERE kind NOT IN ('raised', 'resolved');
    DROP INDEX alert_notifications_alert_idx;
    ALTER TABLE alert_notifications DROP CONSTRAINT alert_notifications_kind_check;
    ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_kind_check CHECK (kind IN ('raised', 'resolved'));
    ALTER TABLE alerts DROP COLUMN ack_until, DROP COLUMN notified_at, DROP COLUMN escalated_at;
    DROP TABLE channel_deliveries, notification_policies, notification_channels;
  `);
}
