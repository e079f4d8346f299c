/**
 * Availability of systems over a range, from the periods behind it (pure; docs/decisions.md
 * "Availability reports"). Every millisecond of a system's range is exactly one of:
 *
 * - unknown: before the alert retention horizon, where resolved alerts may have been purged;
 * - inactive: the customer was inactive (alerting suppressed);
 * - maintenance: a maintenance window covered the system (alerting suppressed);
 * - down: an offline alert (any severity), or an alert of a rule that counts as downtime, was open
 *   (the repo picks those alerts);
 * - up: the rest.
 *
 * in that order of precedence (a stretch both in maintenance and down counts as maintenance).
 * availability = up / (up + down), as a percentage; null when nothing was monitored.
 */
import { intersect, mergeTagged, normalize, subtract, total, type Interval, type Tagged } from './intervals.js';

export interface AlertPeriod {
  alertId: number;
  start: number;
  /** The resolve time; an open alert ends at the report's end. */
  end: number | null;
}

export interface SystemPeriods {
  /** The system exists from here; before it the range does not count. */
  createdAt: number;
  alerts: readonly AlertPeriod[];
  maintenance: readonly Interval[];
}

export interface RangeFacts {
  from: number;
  to: number;
  /** The alert retention horizon (null: alerts are kept forever). */
  dataFrom: number | null;
  /** When the customer was inactive. */
  inactive: readonly Interval[];
}

export interface Stats {
  /** The part of the range the system existed. */
  periodMs: number;
  /** periodMs less unknown, inactive and maintenance: what availability is measured over. */
  monitoredMs: number;
  downMs: number;
  maintenanceMs: number;
  inactiveMs: number;
  unknownMs: number;
  /** 100 × (monitored − down) / monitored; null when nothing was monitored. */
  availability: number | null;
}

export type PeriodKind = 'down' | 'maintenance' | 'inactive' | 'unknown';

export interface Period {
  kind: PeriodKind;
  start: number;
  end: number;
  /** For `down`: the alerts open during it. */
  alertIds?: number[];
}

export interface SystemAvailability {
  stats: Stats;
  /** In time order, down periods split where maintenance or inactivity cut them. */
  periods: Period[];
}

const ratio = (monitoredMs: number, downMs: number): number | null =>
  monitoredMs > 0 ? (100 * (monitoredMs - downMs)) / monitoredMs : null;

export function systemAvailability(range: RangeFacts, system: SystemPeriods): SystemAvailability {
  const own: Interval = [Math.max(range.from, system.createdAt), range.to];
  const span = own[1] > own[0] ? [own] : [];
  const unknown = range.dataFrom === null ? [] : intersect(span, [[range.from, range.dataFrom]]);
  const inactive = subtract(intersect(span, range.inactive), unknown);
  const maintenance = subtract(intersect(span, system.maintenance), [...unknown, ...inactive]);
  const excluded = normalize([...unknown, ...inactive, ...maintenance]);

  const alertStretches: Tagged[] = system.alerts.map((alert) => ({
    start: Math.max(alert.start, own[0]),
    end: Math.min(alert.end ?? range.to, own[1]),
    ids: [alert.alertId],
  }));
  const down: Period[] = [];
  for (const group of mergeTagged(alertStretches)) {
    for (const [start, end] of subtract([[group.start, group.end]], excluded)) {
      down.push({ kind: 'down', start, end, alertIds: [...group.ids].sort((a, b) => a - b) });
    }
  }

  const periodMs = total(span);
  const unknownMs = total(unknown);
  const inactiveMs = total(inactive);
  const maintenanceMs = total(maintenance);
  const downMs = down.reduce((sum, period) => sum + period.end - period.start, 0);
  const monitoredMs = periodMs - unknownMs - inactiveMs - maintenanceMs;
  const periods: Period[] = [
    ...unknown.map(([start, end]): Period => ({ kind: 'unknown', start, end })),
    ...inactive.map(([start, end]): Period => ({ kind: 'inactive', start, end })),
    ...maintenance.map(([start, end]): Period => ({ kind: 'maintenance', start, end })),
    ...down,
  ].sort((a, b) => a.start - b.start);
  return {
    stats: {
      periodMs,
      monitoredMs,
      downMs,
      maintenanceMs,
      inactiveMs,
      unknownMs,
      availability: ratio(monitoredMs, downMs),
    },
    periods,
  };
}

/** A group's figures (a cluster, the customer): time-weighted over its systems, each system-ms counts once. */
export function combine(stats: readonly Stats[]): Stats {
  const sum = (pick: (s: Stats) => number) => stats.reduce((acc, s) => acc + pick(s), 0);
  const monitoredMs = sum((s) => s.monitoredMs);
  const downMs = sum((s) => s.downMs);
  return {
    periodMs: sum((s) => s.periodMs),
    monitoredMs,
    downMs,
    maintenanceMs: sum((s) => s.maintenanceMs),
    inactiveMs: sum((s) => s.inactiveMs),
    unknownMs: sum((s) => s.unknownMs),
    availability: ratio(monitoredMs, downMs),
  };
}
