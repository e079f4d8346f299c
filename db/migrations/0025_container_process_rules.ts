/**
 * Default rules for containers and watched processes (docs/rules.md "Default rules"), added to an
 * installation whose default rules were already seeded. A fresh installation gets them from the
 * seeding step (db/default-rules.ts) after the migrations, so this adds nothing while the seeding
 * marker is absent: rows added here would make the seeding find rules and skip all the others.
 * A key that already has a global rule (an admin's own) is left as it is. The rows are written out
 * here, not imported: a migration keeps doing what it did when it shipped.
 */
import type { Knex } from 'knex';

const MIN = 60;
const RULES = [
  ['container.exited', 'Container exited unexpectedly', 'container.exited_unexpectedly', '==', 1, 0, 'CRITICAL', true],
  ['container.unhealthy', 'Container unhealthy', 'container.healthy', '==', 0, MIN, 'WARNING', true],
  ['container.crash_loop', 'Container restarting in a loop', 'container.restarts_recent', '>=', 3, 0, 'CRITICAL', true],
  ['container.cpu', 'Container CPU at its limit', 'container.cpu_pct', '>', 90, 10 * MIN, 'WARNING', false],
  ['container.memory', 'Container memory near its limit', 'container.mem_pct', '>', 90, 5 * MIN, 'WARNING', false],
  ['process.not_running', 'Process not running', 'processes.count', '==', 0, 2 * MIN, 'CRITICAL', true],
] as const;

export async function up(knex: Knex): Promise<void> {
  const seeded = await knex('app_settings').where({ key: 'default_rules_seeded' }).first('key');
  if (!seeded) return;
  for (const [key, name, metric, operator, threshold, forSeconds, severity, enabled] of RULES) {
    const taken = await knex('alert_rules').where({ key }).whereNull('scope_type').first('id');
    if (taken) continue;
    await knex('alert_rules').insert({
      key,
      name,
      kind: 'metric',
      severity,
      metric,
      operator,
      threshold,
      for_seconds: forSeconds,
      enabled,
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  // global rules only; overrides an admin made for these keys go with them, as they override nothing then
  await knex('alert_rules')
    .whereIn(
      'key',
      RULES.map(([key]) => key),
    )
    .delete();
}
