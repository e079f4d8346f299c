/**
 * Availability reports: a customer's systems, clusters and total over local days of the customer's
 * calendar, from the periods a system was offline or an alert of a rule that counts as downtime was
 * open, less maintenance windows, inactivity and what the alert retention may have purged
 * (reports/availability.ts does the sums).
 * Who may read: whoever may see the customer (a 404 otherwise, like every customer-scoped read).
 */
import type { AvailabilityReport } from '../../../contracts/reports.js';
import { canSeeCustomer, type Principal } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';
import { Invalid, NotFound } from '../lib/errors.js';
import { windowOccurrences } from '../maintenance/schedule.js';
import {
  combine,
  systemAvailability,
  type AlertPeriod,
  type Period,
  type RangeFacts,
  type Stats,
  type SystemPeriods,
} from './availability.js';
import {
  formatLocalDate,
  localDateOf,
  nextDay,
  parseLocalDate,
  safeZone,
  startOfLocalDay,
  type LocalDate,
} from './calendar.js';
import { clip, type Interval } from './intervals.js';
import type { ReportCustomer, ReportsRepo, ReportSystem, ReportWindow } from './repo.js';

const DAY_MS = 86_400_000;
/** The longest range one report covers: a year and a bit, enough for "last year" in any zone. */
export const MAX_REPORT_DAYS = 400;

/** The alert retention in days (0 keeps resolved alerts forever). */
export interface RetentionSource {
  get(): Promise<{ retentionDays: number }>;
}

/** Per local day, each system's figures (reports' `daily`). */
export interface DailyAvailability {
  timeZone: string;
  /** YYYY-MM-DD, oldest first; the last is today. */
  dates: string[];
  /** The customer's maintenance windows (status pages show what is active or coming). */
  windows: ReportWindow[];
  systems: Array<{ id: number; clusterId: number | null; days: Stats[] }>;
  /** The rules whose alerts counted as downtime (a system offline always counts). */
  downtimeRules: Array<{ key: string; name: string }>;
}

export interface DayRange {
  from: LocalDate;
  to: LocalDate;
}

function dateOf(text: string | undefined, field: string, fallback: LocalDate): LocalDate {
  if (text === undefined) return fallback;
  const date = parseLocalDate(text);
  if (!date) throw new Invalid(`${field}: must be a date YYYY-MM-DD`, { field });
  return date;
}

const zoneOf = (customer: ReportCustomer): string => safeZone(customer.timeZone);

/** Whether a maintenance window's scope takes in the system. */
export const windowApplies = (window: ReportWindow, system: Pick<ReportSystem, 'id' | 'clusterId'>): boolean =>
  window.scopeType === 'customer' ||
  (window.scopeType === 'cluster' && window.scopeId === system.clusterId) ||
  (window.scopeType === 'system' && window.scopeId === system.id);

/**
 * A window definition's occurrences within [from, to) while it was in force: an edit cuts the old
 * schedule's occurrence at the edit and starts the new one's there, as the evaluation saw it.
 */
function occurrencesInForce(window: ReportWindow, from: number, to: number, zone: string): Interval[] {
  const inForce: Interval = [Math.max(from, window.validFrom.getTime()), Math.min(to, window.validTo?.getTime() ?? to)];
  if (inForce[1] <= inForce[0]) return [];
  return clip(windowOccurrences(window.schedule, inForce[0], inForce[1], zone), inForce);
}

const periodJson = (period: Period) => ({
  kind: period.kind,
  from: new Date(period.start).toISOString(),
  to: new Date(period.end).toISOString(),
  ...(period.alertIds ? { alertIds: period.alertIds } : {}),
});

export function createReportsService({
  repo,
  clock,
  retention,
}: {
  repo: ReportsRepo;
  clock: Clock;
  retention: RetentionSource;
}) {
  async function visibleCustomer(principal: Principal, id: number): Promise<ReportCustomer> {
    const customer = await repo.findCustomer(id);
    if (!customer || !canSeeCustomer(principal, id)) throw new NotFound('No such customer');
    return customer;
  }

  /**
   * What a customer's figures over [from, to) are computed from, read once: its systems, their down
   * alerts, the maintenance stretches and inactive periods, and the retention horizon.
   */
  async function load(customerId: number, zone: string, from: number, to: number, now: number) {
    const { retentionDays } = await retention.get();
    const horizon = retentionDays === 0 ? null : now - retentionDays * DAY_MS;
    const [systems, alerts, downtimeRules, windows, inactive] = await Promise.all([
      repo.systemsOf(customerId),
      repo.downAlerts(customerId, new Date(from), new Date(to)),
      repo.downtimeRules(customerId),
      repo.windowsOf(customerId, new Date(from), new Date(to)),
      repo.inactivePeriods(customerId, new Date(from), new Date(to)),
    ]);
    const facts: RangeFacts = {
      from,
      to,
      dataFrom: horizon !== null && horizon > from ? horizon : null,
      inactive: inactive.map((p): Interval => [p.start.getTime(), p.end?.getTime() ?? to]),
    };
    const occurrences = windows.map((window) => ({
      window,
      stretches: occurrencesInForce(window, from, to, zone),
    }));
    // grouped once: filtering all of them per system cost 10,000 × 10,000 comparisons after a mass outage
    const alertsOf = new Map<number, AlertPeriod[]>();
    for (const alert of alerts) {
      const period = { alertId: alert.id, start: alert.startedAt.getTime(), end: alert.resolvedAt?.getTime() ?? null };
      const list = alertsOf.get(alert.systemId);
      if (list) list.push(period);
      else alertsOf.set(alert.systemId, [period]);
    }
    const periodsOf = (system: ReportSystem): SystemPeriods => ({
      createdAt: system.createdAt.getTime(),
      alerts: alertsOf.get(system.id) ?? [],
      maintenance: occurrences.filter((o) => windowApplies(o.window, system)).flatMap((o) => o.stretches),
    });
    return { facts, systems, windows, downtimeRules, periodsOf };
  }

  /**
   * Each system's figures per local day of the last `days` days (today so far included), for the
   * status pages' bars (of the systems `only` keeps); null for a customer that does not exist.
   */
  async function daily(
    customerId: number,
    days: number,
    only: (system: Pick<ReportSystem, 'id' | 'clusterId'>) => boolean = () => true,
  ): Promise<DailyAvailability | null> {
    const customer = await repo.findCustomer(customerId);
    if (!customer) return null;
    const zone = zoneOf(customer);
    const now = clock.now().getTime();
    const today = localDateOf(now, zone);
    // the calendar date `days - 1` days before today (Date.UTC rolls months and years over)
    let date = localDateOf(Date.UTC(today.year, today.month - 1, today.day - (days - 1)), 'UTC');
    const dates: LocalDate[] = [];
    for (let i = 0; i < days; i++, date = nextDay(date)) dates.push(date);
    const starts = dates.map((d) => startOfLocalDay(d, zone));
    const from = starts[0] as number;
    const { facts, systems, windows, downtimeRules, periodsOf } = await load(customer.id, zone, from, now, now);
    return {
      timeZone: zone,
      dates: dates.map(formatLocalDate),
      // the definitions in force now: a deleted window or an edit's old schedule announces nothing
      windows: windows.filter((window) => window.validTo === null),
      downtimeRules,
      systems: systems.filter(only).map((system) => {
        const periods = periodsOf(system);
        return {
          id: system.id,
          clusterId: system.clusterId,
          days: starts.map((start, i) => {
            const end = Math.min(starts[i + 1] ?? now, now);
            const dayFacts: RangeFacts = {
              ...facts,
              from: start,
              to: Math.max(start, end),
              dataFrom: facts.dataFrom !== null && facts.dataFrom > start ? facts.dataFrom : null,
            };
            return systemAvailability(dayFacts, periods).stats;
          }),
        };
      }),
    };
  }

  /** The report of `customer` over local days `range` (both included), cut at now. */
  async function build(customer: ReportCustomer, range: DayRange): Promise<AvailabilityReport> {
    const zone = zoneOf(customer);
    const now = clock.now().getTime();
    const from = startOfLocalDay(range.from, zone);
    const to = Math.min(startOfLocalDay(nextDay(range.to), zone), now);
    if (to <= from) throw new Invalid('from: the range has not begun yet', { field: 'from' });
    if (to - from > MAX_REPORT_DAYS * DAY_MS)
      throw new Invalid(`to: a report covers at most ${MAX_REPORT_DAYS} days`, { field: 'to' });

    const { facts, systems, downtimeRules, periodsOf } = await load(customer.id, zone, from, to, now);
    const rows = systems.map((system) => ({ system, ...systemAvailability(facts, periodsOf(system)) }));

    const clusters = new Map<number, { name: string; rows: typeof rows }>();
    for (const row of rows) {
      if (row.system.clusterId === null) continue;
      const entry = clusters.get(row.system.clusterId) ?? { name: row.system.clusterName ?? '', rows: [] };
      entry.rows.push(row);
      clusters.set(row.system.clusterId, entry);
    }

    return {
      customer: { id: customer.id, name: customer.name, timeZone: zone, active: customer.active },
      fromDate: formatLocalDate(range.from),
      toDate: formatLocalDate(range.to),
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      generatedAt: new Date(now).toISOString(),
      dataFrom: facts.dataFrom === null ? null : new Date(facts.dataFrom).toISOString(),
      total: combine(rows.map((row) => row.stats)),
      clusters: [...clusters]
        .map(([id, entry]) => ({ id, name: entry.name, ...combine(entry.rows.map((row) => row.stats)) }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id),
      systems: rows.map(({ system, stats, periods }) => ({
        id: system.id,
        name: system.name,
        kind: system.kind,
        clusterId: system.clusterId,
        ...stats,
        periods: periods.map(periodJson),
      })),
      downtimeRules,
    };
  }

  return {
    visibleCustomer,
    build,
    daily,

    /** GET /api/reports/availability: local dates default to this month so far. */
    async availability(
      principal: Principal,
      query: { customer: number; from?: string | undefined; to?: string | undefined },
    ): Promise<AvailabilityReport> {
      const customer = await visibleCustomer(principal, query.customer);
      const today = localDateOf(clock.now().getTime(), zoneOf(customer));
      const from = dateOf(query.from, 'from', { ...today, day: 1 });
      const to = dateOf(query.to, 'to', today);
      if (startOfLocalDay(to, 'UTC') < startOfLocalDay(from, 'UTC'))
        throw new Invalid('to: must not be before from', { field: 'to' });
      return build(customer, { from, to });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
