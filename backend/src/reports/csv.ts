/**
 * The report as CSV (RFC 4180, CRLF): one long table a spreadsheet filters by its first column —
 * the customer's total, each cluster, each system, each period behind the systems' figures, then
 * each rule whose alerts counted as downtime (`downtime_rule`: its key and name; a system offline
 * always counts).
 * Durations in minutes, instants in ISO 8601 UTC.
 */
import type { AvailabilityReport, AvailabilityStats } from '../../../contracts/reports.js';

const HEADER = [
  'row',
  'id',
  'name',
  'cluster',
  'availability_percent',
  'monitored_min',
  'down_min',
  'maintenance_min',
  'inactive_min',
  'unknown_min',
  'period_kind',
  'period_from',
  'period_to',
  'alert_ids',
];

/** Quotes what needs it, and defuses cells a spreadsheet would run as a formula (names are user input). */
function cell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const minutes = (ms: number) => Number((ms / 60_000).toFixed(3));

const figures = (stats: AvailabilityStats) => [
  stats.availability === null ? null : Number(stats.availability.toFixed(6)),
  minutes(stats.monitoredMs),
  minutes(stats.downMs),
  minutes(stats.maintenanceMs),
  minutes(stats.inactiveMs),
  minutes(stats.unknownMs),
];

export function reportCsv(report: AvailabilityReport): string {
  const clusterNames = new Map(report.clusters.map((c) => [c.id, c.name]));
  const rows: Array<Array<string | number | null>> = [HEADER];
  rows.push(['customer', report.customer.id, report.customer.name, null, ...figures(report.total)]);
  for (const cluster of report.clusters) rows.push(['cluster', cluster.id, cluster.name, null, ...figures(cluster)]);
  for (const system of report.systems) {
    const cluster = system.clusterId === null ? null : (clusterNames.get(system.clusterId) ?? null);
    rows.push(['system', system.id, system.name, cluster, ...figures(system)]);
  }
  for (const system of report.systems) {
    for (const period of system.periods) {
      rows.push([
        'period',
        system.id,
        system.name,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        period.kind,
        period.from,
        period.to,
        period.alertIds?.join(' ') ?? null,
      ]);
    }
  }
  const blank = HEADER.slice(3).map(() => null);
  for (const rule of report.downtimeRules) rows.push(['downtime_rule', rule.key, rule.name, ...blank]);
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
