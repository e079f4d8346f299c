/**
 * Core schema: accounts, settings, tenancy (customers → clusters → systems),
 * metrics, rules and alerts. Later features add their own migrations.
 * Ids are integers (compact in the metrics table, which holds billions of rows).
 */
import type { Knex } from 'knex';

const ROLES = "('ADMIN', 'OPERATOR', 'VIEWER')";
const SEVERITIES = "('INFO', 'WARNING', 'CRITICAL')";
const SCOPES = "('customer', 'cluster', 'system')";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE users (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      email text NOT NULL,
      username text,
      name text NOT NULL,
      role text NOT NULL CHECK (role IN ${ROLES}),
      password_hash text NOT NULL,
      totp_secret text,
      totp_last_step bigint,
      disabled boolean NOT NULL DEFAULT false,
      notify_min_severity text NOT NULL DEFAULT 'WARNING' CHECK (notify_min_severity IN ${SEVERITIES}),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_lower_idx ON users (lower(email));
    CREATE UNIQUE INDEX users_username_lower_idx ON users (lower(username)) WHERE username IS NOT NULL;

    -- id is the SHA-256 of the cookie's token: a leaked table opens no session
    CREATE TABLE sessions (
      id text PRIMARY KEY,
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      -- 'second_factor': password accepted, code pending; opens nothing but that step
      stage text NOT NULL DEFAULT 'full' CHECK (stage IN ('full', 'second_factor')),
      data jsonb NOT NULL DEFAULT '{}'::jsonb,
      ip text,
      user_agent text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      -- idle expiry, pushed forward on use; never beyond absolute_expires_at
      expires_at timestamptz NOT NULL,
      absolute_expires_at timestamptz NOT NULL
    );
    CREATE INDEX sessions_user_idx ON sessions (user_id);
    CREATE INDEX sessions_expires_idx ON sessions (expires_at);

    CREATE TABLE app_settings (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE customers (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL,
      active boolean NOT NULL DEFAULT true,
      notes text NOT NULL DEFAULT '',
      time_zone text NOT NULL DEFAULT 'UTC',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX customers_name_lower_idx ON customers (lower(name));

    CREATE TABLE user_customer_grants (
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      PRIMARY KEY (user_id, customer_id)
    );
    CREATE INDEX user_customer_grants_customer_idx ON user_customer_grants (customer_id);

    CREATE TABLE clusters (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      name text NOT NULL,
      enrollment_key text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, customer_id)
    );
    CREATE UNIQUE INDEX clusters_customer_name_idx ON clusters (customer_id, lower(name));

    CREATE TABLE systems (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      cluster_id integer,
      name text NOT NULL,
      hostname text NOT NULL DEFAULT '',
      agent_id text UNIQUE,
      agent_key_hash text,
      status text NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'ONLINE', 'WARNING', 'CRITICAL', 'OFFLINE', 'STANDBY')),
      offline_alerts boolean NOT NULL DEFAULT true,
      last_seen_at timestamptz,
      agent_version text,
      os text,
      kernel text,
      arch text,
      cores integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      -- a system's cluster must belong to the system's customer
      FOREIGN KEY (cluster_id, customer_id) REFERENCES clusters (id, customer_id) ON DELETE SET NULL (cluster_id)
    );
    CREATE INDEX systems_customer_idx ON systems (customer_id);
    CREATE INDEX systems_cluster_idx ON systems (cluster_id);

    -- No foreign key to systems: the table becomes a TimescaleDB hypertable with
    -- billions of rows; a system's samples are removed by the service that deletes it.
    CREATE TABLE metrics (
      time timestamptz NOT NULL,
      system_id integer NOT NULL,
      name text NOT NULL,
      instance text NOT NULL DEFAULT '',
      value double precision NOT NULL
    );
    -- Dedupe key: the same report sent twice is stored once. It also serves chart
    -- queries (system, metric, instance, time range) and is never "redundant".
    CREATE UNIQUE INDEX metrics_dedupe_idx ON metrics (system_id, name, instance, time);

    CREATE TABLE alert_rules (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL,
      name text NOT NULL,
      kind text NOT NULL DEFAULT 'metric' CHECK (kind IN ('metric', 'offline')),
      severity text NOT NULL CHECK (severity IN ${SEVERITIES}),
      metric text,
      instance_glob text,
      operator text CHECK (operator IN ('>', '>=', '<', '<=', '==', '!=')),
      threshold double precision,
      absolute boolean NOT NULL DEFAULT false,
      for_seconds integer NOT NULL DEFAULT 0 CHECK (for_seconds >= 0),
      enabled boolean NOT NULL DEFAULT true,
      scope_type text CHECK (scope_type IN ${SCOPES}),
      scope_id integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope_type IS NULL) = (scope_id IS NULL)),
      CHECK (kind = 'offline' OR (metric IS NOT NULL AND operator IS NOT NULL AND threshold IS NOT NULL))
    );
    CREATE UNIQUE INDEX alert_rules_key_scope_idx ON alert_rules (key, coalesce(scope_type, ''), coalesce(scope_id, 0));

    CREATE TABLE event_rules (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL,
      name text NOT NULL,
      severity text NOT NULL CHECK (severity IN ${SEVERITIES}),
      event_type text,
      message_pattern text,
      min_event_severity text CHECK (min_event_severity IN ${SEVERITIES}),
      derived text CHECK (derived IN ('reboot')),
      hold_seconds integer NOT NULL DEFAULT 1800 CHECK (hold_seconds >= 0),
      enabled boolean NOT NULL DEFAULT true,
      scope_type text CHECK (scope_type IN ${SCOPES}),
      scope_id integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope_type IS NULL) = (scope_id IS NULL)),
      CHECK (event_type IS NOT NULL OR derived IS NOT NULL)
    );
    CREATE UNIQUE INDEX event_rules_key_scope_idx ON event_rules (key, coalesce(scope_type, ''), coalesce(scope_id, 0));

    CREATE TABLE alerts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      rule_key text NOT NULL,
      rule_kind text NOT NULL CHECK (rule_kind IN ('metric', 'offline', 'event')),
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      instance text NOT NULL DEFAULT '',
      severity text NOT NULL CHECK (severity IN ${SEVERITIES}),
      state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
      value double precision,
      message text NOT NULL DEFAULT '',
      started_at timestamptz NOT NULL,
      resolved_at timestamptz,
      acknowledged_at timestamptz,
      acknowledged_by integer REFERENCES users (id) ON DELETE SET NULL,
      ack_note text,
      CHECK ((state = 'resolved') = (resolved_at IS NOT NULL))
    );
    -- alert identity: (rule key, system, instance); at most one open at a time
    CREATE UNIQUE INDEX alerts_open_identity_idx ON alerts (rule_key, system_id, instance) WHERE state = 'open';
    CREATE INDEX alerts_system_started_idx ON alerts (system_id, started_at DESC);
    CREATE INDEX alerts_resolved_at_idx ON alerts (resolved_at) WHERE state = 'resolved';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE alerts, event_rules, alert_rules, metrics, systems, clusters,
      user_customer_grants, customers, app_settings, sessions, users;
  `);
}
