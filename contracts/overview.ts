/**
 * The overview, the console's home page: GET /api/overview and the live snapshot `overview`
 * (docs/api.md "Overview"), the same shape in both. Everything is within the customers the
 * account may see.
 */
import { z } from 'zod';
import { id, instant } from './common.js';
import { systemStatus } from './systems.js';

const count = z.number().int().min(0);

/** Systems by their status (every status, zero included). */
export const statusCounts = z.object(
  Object.fromEntries(systemStatus.options.map((status) => [status, count])) as Record<
    z.infer<typeof systemStatus>,
    typeof count
  >,
);
export type StatusCounts = z.infer<typeof statusCounts>;

/** Open alerts by severity. */
export const severityCounts = z.object({ critical: count, warning: count, info: count });
export type SeverityCounts = z.infer<typeof severityCounts>;

/** A system with the most alert-minutes in the last 24 hours. */
export const worstOffender = z.object({
  systemId: id,
  systemName: z.string(),
  status: systemStatus,
  /** Minutes of the last 24 h each of its alerts was open, added up (two alerts at once count twice). */
  alertMinutes: count,
});
export type WorstOffender = z.infer<typeof worstOffender>;

export const overviewCustomer = z.object({
  id,
  name: z.string(),
  active: z.boolean(),
  systems: count,
  byStatus: statusCounts,
  openAlerts: severityCounts,
  /** Systems a maintenance window covers now. */
  inMaintenance: count,
  /** Up to 5, most alert-minutes first; systems with less than a minute are left out. */
  worstOffenders: z.array(worstOffender),
});
export type OverviewCustomer = z.infer<typeof overviewCustomer>;

export const overviewIncident = z.object({
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  title: z.string(),
  customerId: id,
  customerName: z.string(),
  clusterId: id,
  clusterName: z.string(),
  startedAt: instant,
  /** Member alerts still open. */
  openAlerts: count,
});
export type OverviewIncident = z.infer<typeof overviewIncident>;

export const overview = z
  .object({
    totals: z.object({
      customers: count,
      systems: count,
      byStatus: statusCounts,
      openAlerts: severityCounts,
      inMaintenance: count,
      openIncidents: count,
    }),
    /** Every customer the account sees, by name. */
    customers: z.array(overviewCustomer),
    /** Open incidents, newest first (at most 50; `totals.openIncidents` counts them all). */
    incidents: z.array(overviewIncident),
  })
  .meta({ id: 'Overview' });
export type Overview = z.infer<typeof overview>;

/** GET /api/overview/trend: the fleet over the last 24 hours, a point an hour, the last one now. */
export const fleetTrend = z
  .object({
    points: z.array(
      z.object({
        at: instant,
        /** Systems with an offline alert open at that moment. */
        systemsDown: count,
        /** Alerts open at that moment, every severity. */
        alertsOpen: count,
      }),
    ),
  })
  .meta({ id: 'FleetTrend' });
export type FleetTrend = z.infer<typeof fleetTrend>;
