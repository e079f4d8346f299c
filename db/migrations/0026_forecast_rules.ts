/**
 * Forecast rules: "reaches THRESHOLD within HORIZON" over a series (docs/rules.md "Forecast rules").
 *
 * - `alert_rules.kind` takes 'forecast', with `horizon_seconds` (how far ahead the projection may
 *   reach); an alert of such a rule has `rule_kind` 'forecast'.
 * - `forecast_fits`: the least-squares line of each series a forecast rule reads, per system, over
 *   the whole hours of the window before `through`; `forecast_refits` says when a system's lines of
 *   one metric were last fitted. The run fits a bounded number of systems each time, so it never
 *   reads every system's history at once.
 * - The two default forecast rules, for an installation whose default rules were seeded already (a
 *   new one gets them with the other defaults at start-up: a rule inserted here would make the seed
 *   step think the defaults were there).
 */
import type { Knex } from 'knex';

const HOUR = 3600;

const FORECAST_DEFAULTS = [
  { key: 'disk.forecast', name: 'Disk full within 3 days', severity: 'WARNING', horizon: 72 * HOUR },
  { key: 'disk.forecast_critical', name: 'Disk full within a day', severity: 'CRITICAL', horizon: 24 * HOUR },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_kind_check;
    ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_kind_check CHECK (kind IN ('metric', 'offline', 'forecast'));
    ALTER TABLE alert_rules ADD COLUMN horizon_seconds integer CHECK (horizon_seconds > 0);
    ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_horizon_check
      CHECK ((kind = 'forecast') = (horizon_seconds IS NOT NULL));
    ALTER TABLE alerts DROP CONSTRAINT alerts_rule_kind_check;
    ALTER TABLE alerts ADD CONSTRAINT alerts_rule_kind_check
      CHECK (rule_kind IN ('metric', 'offline', 'event', 'forecast'));

    CREATE TABLE forecast_fits (
      system_id integer NOT NULL REFERENCES systems(id) ON DELETE CASCADE,
      metric text NOT NULL,
      instance text NOT NULL,
      -- the end of the window (a whole hour); the line's value there and its slope per hour
      through timestamptz NOT NULL,
      level float8 NOT NULL,
      slope_per_h float8 NOT NULL,
      -- hours of the window that hold data
      buckets integer NOT NULL,
      PRIMARY KEY (system_id, metric, instance)
    );
    CREATE INDEX forecast_fits_metric_idx ON forecast_fits (metric);

    CREATE TABLE forecast_refits (
      system_id integer NOT NULL REFERENCES systems(id) ON DELETE CASCADE,
      metric text NOT NULL,
      through timestamptz NOT NULL,
      window_hours integer NOT NULL,
      PRIMARY KEY (system_id, metric)
    );
  `);
  const seeded = await knex('app_settings').where({ key: 'default_rules_seeded' }).first('key');
  if (!seeded) return;
  for (const rule of FORECAST_DEFAULTS) {
    await knex.raw(
      `INSERT INTO alert_rules (key, name, kind, severity, metric, operator, threshold, horizon_seconds)
       VALUES (?, ?, 'forecast', ?, 'disk.used_pct', '>=', 100, ?)
       ON CONFLICT DO NOTHING`,
      [rule.key, rule.name, rule.severity, rule.horizon],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE forecast_refits, forecast_fits;
    DELETE FROM alerts WHERE rule_kind = 'forecast';
    DELETE FROM alert_rules WHERE kind = 'forecast';
    ALTER TABLE alerts DROP CONSTRAINT alerts_rule_kind_check;
    ALTER TABLE alerts ADD CONSTRAINT alerts_rule_kind_check CHECK (rule_kind IN ('metric', 'offline', 'event'));
    ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_horizon_check;
    ALTER TABLE alert_rules DROP COLUMN horizon_seconds;
    ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_kind_check;
    ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_kind_check CHECK (kind IN ('metric', 'offline'));
  `);
}
