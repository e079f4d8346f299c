/**
 * The overview: per customer the systems by status, open alerts by severity,
 * systems in maintenance and the worst offenders of the last 24 h; fleet totals; open incidents.
 * Computed for a visible set (an account's customers, or null for ADMIN), so the HTTP route and
 * the live snapshot `overview` (one computation per audience) answer the same.
 */
import type { Clock } from '../lib/clock.js';
import type { Visible } from '../lib/access.js';
import { windowCovers } from '../maintenance/schedule.js';
import type { CoveredScopes, OverviewRepo, WindowOfCustomer } from './repo.js';
import type { FleetTrend, Overview, OverviewCustomer, StatusCounts } from '../../../contracts/overview.js';
import { systemStatus } from '../../../contracts/systems.js';

/** The scopes the windows cover at `now`, each read in its customer's zone (as the evaluation run does). */
export function coveredScopes(windows: readonly WindowOfCustomer[], now: Date): CoveredScopes {
  const covered = { customer: new Set<number>(), cluster: new Set<number>(), system: new Set<number>() };
  for (const window of windows) {
    let covers: boolean;
    try {
      covers = windowCovers(window.schedule, now, window.timeZone);
    } catch {
      covers = windowCovers(window.schedule, now, 'UTC'); // an unknown zone (edited by SQL): read in UTC
    }
    if (covers) covered[window.scopeType].add(window.scopeId);
  }
  return { customer: [...covered.customer], cluster: [...covered.cluster], system: [...covered.system] };
}

const zeroStatuses = () => Object.fromEntries(systemStatus.options.map((s) => [s, 0])) as StatusCounts;

export function createOverviewService(deps: { repo: OverviewRepo; clock: Clock }) {
  const { repo, clock } = deps;
  return {
    async compute(visible: Visible): Promise<Overview> {
      const now = clock.now();
      const covered = coveredScopes(await repo.windows(visible), now);
      const [rows, offenders, incidents] = await Promise.all([
        repo.customers(visible, covered),
        repo.worstOffenders(visible, now),
        repo.openIncidents(visible),
      ]);
      const worstOf = new Map<number, OverviewCustomer['worstOffenders']>();
      for (const { customerId, ...offender } of offenders) {
        const list = worstOf.get(customerId) ?? [];
        list.push(offender);
        worstOf.set(customerId, list);
      }
      const customers = rows.map((row) => ({ ...row, worstOffenders: worstOf.get(row.id) ?? [] }));
      const totals: Overview['totals'] = {
        customers: customers.length,
        systems: 0,
        byStatus: zeroStatuses(),
        openAlerts: { critical: 0, warning: 0, info: 0 },
        inMaintenance: 0,
        openIncidents: incidents.total,
      };
      for (const customer of customers) {
        totals.systems += customer.systems;
        totals.inMaintenance += customer.inMaintenance;
        for (const status of systemStatus.options) totals.byStatus[status] += customer.byStatus[status];
        totals.openAlerts.critical += customer.openAlerts.critical;
        totals.openAlerts.warning += customer.openAlerts.warning;
        totals.openAlerts.info += customer.openAlerts.info;
      }
      return { totals, customers, incidents: incidents.shown };
    },

    /** Systems down and alerts open over the last 24 hours, a point an hour. */
    async trend(visible: Visible): Promise<FleetTrend> {
      const points = await repo.trend(visible, clock.now());
      return { points: points.map((point) => ({ ...point, at: point.at.toISOString() })) };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
