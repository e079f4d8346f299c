/**
 * Availability reports.
 *
 * - `customer_inactive_periods`: when each customer was inactive. Alerting is suppressed while a
 *   customer is inactive, so availability must leave those periods out, and `customers.active` alone
 *   only tells the present. A trigger on `customers` keeps the history whoever changes the flag (the
 *   API, `ops/` scripts or plain SQL): setting it to false opens a period, setting it to true closes
 *   it. A customer inactive at upgrade time gets a period from its `updated_at` (the best guess the
 *   table holds of when it was switched off).
 * - `customer_report_settings`: the monthly report e-mail, opt-in per customer, with its recipients.
 * - `report_deliveries`: one row per customer and reported month, claimed before the mail is sent, so
 *   a month is mailed once even across restarts; it keeps the attempts and the last error.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE customer_inactive_periods (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      started_at timestamptz NOT NULL,
      ended_at timestamptz,
      CHECK (ended_at IS NULL OR ended_at >= started_at)
    );
    -- at most one open period per customer
    CREATE UNIQUE INDEX customer_inactive_periods_open_idx ON customer_inactive_periods (customer_id)
      WHERE ended_at IS NULL;
    CREATE INDEX customer_inactive_periods_customer_idx ON customer_inactive_periods (customer_id, started_at);

    INSERT INTO customer_inactive_periods (customer_id, started_at)
      SELECT id, updated_at FROM customers WHERE NOT active;

    CREATE FUNCTION customer_activity_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        IF NOT NEW.active THEN
          INSERT INTO customer_inactive_periods (customer_id, started_at) VALUES (NEW.id, now());
        END IF;
      ELSIF NEW.active IS DISTINCT FROM OLD.active THEN
        IF NEW.active THEN
          UPDATE customer_inactive_periods SET ended_at = now()
            WHERE customer_id = NEW.id AND ended_at IS NULL;
        ELSE
          INSERT INTO customer_inactive_periods (customer_id, started_at) VALUES (NEW.id, now())
            ON CONFLICT DO NOTHING;
        END IF;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER customers_activity_history AFTER INSERT OR UPDATE OF active ON customers
      FOR EACH ROW EXECUTE FUNCTION customer_activity_history();

    CREATE TABLE customer_report_settings (
      customer_id integer PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
      monthly_enabled boolean NOT NULL DEFAULT false,
      recipients text[] NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE report_deliveries (
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      -- the reported month in the customer's zone, 'YYYY-MM'
      month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
      status text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      recipients text[] NOT NULL DEFAULT '{}',
      last_error text,
      claimed_at timestamptz NOT NULL,
      sent_at timestamptz,
      PRIMARY KEY (customer_id, month)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE report_deliveries, customer_report_settings, customer_inactive_periods;
    DROP TRIGGER customers_activity_history ON customers;
    DROP FUNCTION customer_activity_history();
  `);
}
