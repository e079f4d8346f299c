/**
 * Start-up step 2: seed the default rules once, into an instance that has
 * none. The marker in app_settings keeps rules an admin deleted deleted.
 */
import type { Knex } from 'knex';
import {
  DEFAULT_ALERT_RULES,
  DEFAULT_CHECK_RULES,
  DEFAULT_EVENT_RULES,
  DEFAULT_SCRIPT_RULES,
  type DefaultAlertRule,
} from './default-rules.js';

export const RULES_SEEDED_MARKER = 'default_rules_seeded';
// any constant shared by all Argus processes; guards two concurrent start-ups
const SEED_LOCK_KEY = 7_411_001;

export interface SeedResult {
  alertRules: number;
  eventRules: number;
}

const ruleRow = (r: DefaultAlertRule) => ({
  key: r.key,
  name: r.name,
  kind: r.kind,
  severity: r.severity,
  metric: r.metric,
  operator: r.operator,
  threshold: r.threshold,
  absolute: r.absolute ?? false,
  for_seconds: r.forSeconds,
  counts_as_downtime: r.countsAsDowntime ?? false,
  enabled: r.enabled ?? true,
  horizon_seconds: r.horizonSeconds ?? null,
});

export async function ensureDefaultRules(knex: Knex): Promise<SeedResult> {
  return knex.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [SEED_LOCK_KEY]);
    const marker = await trx('app_settings').where({ key: RULES_SEEDED_MARKER }).first();
    if (marker) return { alertRules: 0, eventRules: 0 };

    const anyAlertRule = await trx('alert_rules').first('id');
    const anyEventRule = await trx('event_rules').first('id');
    const result: SeedResult = { alertRules: 0, eventRules: 0 };
    if (!anyAlertRule && !anyEventRule) {
      await trx('alert_rules').insert(DEFAULT_ALERT_RULES.map(ruleRow));
      await trx('event_rules').insert(
        DEFAULT_EVENT_RULES.map((r) => ({
          key: r.key,
          name: r.name,
          severity: r.severity,
          event_type: r.eventType,
          derived: r.derived,
          hold_seconds: r.holdSeconds,
        })),
      );
      result.alertRules = DEFAULT_ALERT_RULES.length;
      result.eventRules = DEFAULT_EVENT_RULES.length;
    }
    await trx('app_settings').insert({
      key: RULES_SEEDED_MARKER,
      value: JSON.stringify({ at: new Date().toISOString(), ...result }),
    });
    return result;
  });
}

export const CHECK_RULES_SEEDED_MARKER = 'check_rules_seeded';
export const SCRIPT_RULES_SEEDED_MARKER = 'script_rules_seeded';

/**
 * A set of default rules added after the first ones, once per instance (new and upgraded alike): a
 * key that already has a global rule is left as it is, and the marker keeps a rule an admin deleted
 * deleted.
 */
async function ensureRuleSet(knex: Knex, marker: string, rules: readonly DefaultAlertRule[]): Promise<number> {
  return knex.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [SEED_LOCK_KEY]);
    if (await trx('app_settings').where({ key: marker }).first()) return 0;
    const taken = new Set(
      (await trx('alert_rules').whereNull('scope_type').select<{ key: string }[]>('key')).map((r) => r.key),
    );
    const rows = rules.filter((r) => !taken.has(r.key)).map(ruleRow);
    if (rows.length) await trx('alert_rules').insert(rows);
    await trx('app_settings').insert({
      key: marker,
      value: JSON.stringify({ at: new Date().toISOString(), alertRules: rows.length }),
    });
    return rows.length;
  });
}

/** The network checks' default rules. */
export const ensureCheckRules = (knex: Knex): Promise<number> =>
  ensureRuleSet(knex, CHECK_RULES_SEEDED_MARKER, DEFAULT_CHECK_RULES);

/** The script checks' default rules: one per state. */
export const ensureScriptRules = (knex: Knex): Promise<number> =>
  ensureRuleSet(knex, SCRIPT_RULES_SEEDED_MARKER, DEFAULT_SCRIPT_RULES);
