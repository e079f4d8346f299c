/**
 * SQL of the rule preview: the latest values (system_latest) and silent systems; for a forecast
 * rule, the lines fitted now over the window of the hourly rollup (forecast-repo.ts).
 */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import type { FittedLine, ForecastRepo } from './forecast-repo.js';

export interface PreviewCandidate {
  systemId: number;
  systemName: string;
  customerId: number;
  customerName: string;
  clusterId: number | null;
  instance: string;
  value: number | null;
  time: Date;
  /** Forecast rules: the series' line. */
  line?: FittedLine;
}

const mapCandidate = (row: Record<string, unknown>): PreviewCandidate => ({
  systemId: row['system_id'] as number,
  systemName: row['system_name'] as string,
  customerId: row['customer_id'] as number,
  customerName: row['customer_name'] as string,
  clusterId: (row['cluster_id'] as number | null) ?? null,
  instance: (row['instance'] as string | null) ?? '',
  value: (row['value'] as number | null) ?? null,
  time: row['time'] as Date,
});

export function createPreviewRepo(db: Knex, forecasts: ForecastRepo) {
  const systems = (visible: Visible) => {
    const query = db('systems as s')
      .join('customers as c', 'c.id', 's.customer_id')
      .select('s.id as system_id', 's.name as system_name', 's.customer_id', 'c.name as customer_name', 's.cluster_id');
    if (visible) query.whereIn('s.customer_id', [...visible]);
    return query;
  };
  return {
    /** The newest sample of `metric` per (system, instance) not older than `since`. */
    async latestValues(metric: string, since: Date, visible: Visible): Promise<PreviewCandidate[]> {
      // the metric's positions in each system's arrays (db/migrations/0018), not every series unnested
      const rows = await systems(visible)
        .joinRaw(
          `CROSS JOIN LATERAL (SELECT l.instances[k] AS instance, l.vals[k] AS value, l.times[k] AS time
             FROM system_latest l, unnest(array_positions(l.names, ?)) AS k WHERE l.system_id = s.id) ml`,
          [metric],
        )
        .select('ml.instance', 'ml.value', 'ml.time')
        .where('ml.time', '>=', since)
        .orderBy(['s.name', 'ml.instance']);
      return rows.map(mapCandidate);
    },
    /** The lines of `metric`'s series over the `windowHours` before `through`, of the systems one may see. */
    async forecastLines(metric: string, through: Date, windowHours: number, visible: Visible) {
      const lines = await forecasts.fitLines(metric, through, windowHours, {
        customerIds: visible ? [...visible] : null,
      });
      const bySystem = new Map<number, Record<string, unknown>>();
      const ids = [...new Set(lines.map((l) => l.systemId))];
      for (const row of await systems(visible).whereIn('s.id', ids)) bySystem.set(row.system_id as number, row);
      return lines.flatMap((line): PreviewCandidate[] => {
        const row = bySystem.get(line.systemId);
        return row
          ? [{ ...mapCandidate({ ...row, instance: line.instance, value: line.level, time: through }), line }]
          : [];
      });
    },
    /** Systems that have reported once and not since `before` (the offline rule's condition). */
    async silentSystems(before: Date, visible: Visible): Promise<PreviewCandidate[]> {
      const rows = await systems(visible)
        .select('s.last_seen_at as time')
        .where('s.last_seen_at', '<', before)
        // a system with offline alerts off goes STANDBY instead: the rule does not fire there
        .where('s.offline_alerts', true)
        .orderBy('s.name');
      return rows.map(mapCandidate);
    },
  };
}

export type PreviewRepo = ReturnType<typeof createPreviewRepo>;
