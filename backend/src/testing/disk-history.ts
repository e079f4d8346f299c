/** Disk fill histories for forecast tests: samples every 15 minutes written as agents' reports are stored. */
import type { Knex } from 'knex';

export const HOUR = 3_600_000;
const STEP = 15 * 60_000;

/**
 * `disk.used_pct` of `instance` at every 15 minutes from `from` (inclusive) to `to` (exclusive), the
 * value given by `valueAt(hours since from)`, through metric_samples (the rows are one per report).
 */
export async function writeDiskHistory(
  knex: Knex,
  systemId: number,
  instance: string,
  from: Date,
  to: Date,
  valueAt: (hours: number) => number,
): Promise<void> {
  const rows = [];
  for (let t = from.getTime(); t < to.getTime(); t += STEP) {
    const value = valueAt((t - from.getTime()) / HOUR);
    rows.push({ time: new Date(t), system_id: systemId, name: 'disk.used_pct', instance, value });
  }
  // the view's INSTEAD OF trigger merges each sample into its report's row (db/migrations/0022)
  for (let i = 0; i < rows.length; i += 200) await knex('metric_samples').insert(rows.slice(i, i + 200));
}
