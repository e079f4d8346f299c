/**
 * The per-sample rows of an installation older than one row per report (`metrics_legacy` and its
 * rollups `metrics_5m_legacy`, `metrics_1h_legacy`): kept readable, under their own policies, until
 * retention has emptied them; then dropped here (docs/decisions.md "One row per report").
 */
import { query, type StepContext } from './context.js';

const LEGACY = ['metrics_legacy', 'metrics_5m_legacy', 'metrics_1h_legacy'];

export async function dropEmptyLegacy({ knex, report }: StepContext): Promise<boolean> {
  for (const relation of LEGACY) {
    const [state] = await query<{ found: boolean }>(knex, 'SELECT to_regclass(?) IS NOT NULL AS found', [relation]);
    if (!state?.found) continue;
    const [rows] = await query<{ any: boolean }>(knex, `SELECT EXISTS (SELECT 1 FROM ${relation}) AS any`);
    if (rows?.any) return false;
  }
  const [table] = await query<{ found: boolean }>(knex, "SELECT to_regclass('metrics_legacy') IS NOT NULL AS found");
  if (!table?.found) return false;
  await knex.raw('DROP TABLE metrics_legacy CASCADE');
  report.info('Dropped metrics_legacy and its rollups: retention has emptied them');
  return true;
}
