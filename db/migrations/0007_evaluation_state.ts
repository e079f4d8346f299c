/**
 * What the evaluation run (POST /api/cron/evaluate-alerts) keeps between runs,
 * so it never scans metric history and a restart changes nothing (docs/rules.md
 * "The evaluation run"):
 *
 * - alert_pending: a metric condition that holds but has not held for its rule's
 *   `for` yet (Prometheus "pending"); `since` is the first run that saw it hold.
 *   When runs stopped for longer than an hour (app_settings `evaluation_last_run`),
 *   pending conditions start over, like Prometheus' for-outage-tolerance.
 * - evaluation_uptime: the newest `uptime.s` sample a run has seen per system, so
 *   the derived `reboot` event ("uptime went down") needs no history; a partial
 *   index finds the uptime rows of metric_latest.
 * - alerts_open_system_idx: open alerts by system (the run reads them all).
 * - evaluation_seen_events: agent events already evaluated, for a sliding window
 *   over agent_events.received_at (ids are not a safe cursor: concurrent ingest
 *   transactions commit out of id order and ON CONFLICT burns ids).
 * - evaluation_event_holds: until when an event alert stays open (its hold time,
 *   extended by further matching events).
 * - alert_notifications: the e-mail outbox, filled in the run's transaction and
 *   sent after it commits; a failed send is retried by later runs, at most 3 times.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE alert_pending (
      rule_key text NOT NULL,
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      instance text NOT NULL DEFAULT '',
      since timestamptz NOT NULL,
      PRIMARY KEY (rule_key, system_id, instance)
    );

    -- the run reads every open alert and each system's worst one: small, whatever the history
    CREATE INDEX alerts_open_system_idx ON alerts (system_id, severity) WHERE state = 'open';

    -- the derived reboot reads every system's uptime.s: 10,000 rows by index instead of scanning all
    -- ~600,000 latest values; name never changes, so ingest's updates stay HOT
    CREATE INDEX metric_latest_uptime_idx ON metric_latest (system_id) WHERE name = 'uptime.s';

    CREATE TABLE evaluation_uptime (
      system_id integer PRIMARY KEY REFERENCES systems (id) ON DELETE CASCADE,
      uptime double precision NOT NULL,
      sample_time timestamptz NOT NULL
    ) WITH (fillfactor = 70);

    CREATE TABLE evaluation_seen_events (
      event_id bigint PRIMARY KEY,
      received_at timestamptz NOT NULL
    );
    CREATE INDEX evaluation_seen_events_received_idx ON evaluation_seen_events (received_at);

    CREATE TABLE evaluation_event_holds (
      alert_id bigint PRIMARY KEY REFERENCES alerts (id) ON DELETE CASCADE,
      hold_until timestamptz NOT NULL
    );

    CREATE TABLE alert_notifications (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      alert_id bigint NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('raised', 'resolved')),
      -- pending: to send; sent; failed: 3 attempts used; dropped: suppressed or too old to be news
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'dropped')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      created_at timestamptz NOT NULL,
      last_attempt_at timestamptz,
      sent_at timestamptz
    );
    CREATE INDEX alert_notifications_pending_idx ON alert_notifications (id) WHERE status = 'pending';
    CREATE INDEX alert_notifications_created_idx ON alert_notifications (created_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'DROP TABLE alert_notifications, evaluation_event_holds, evaluation_seen_events, evaluation_uptime, alert_pending',
  );
  await knex.raw('DROP INDEX alerts_open_system_idx, metric_latest_uptime_idx');
}
