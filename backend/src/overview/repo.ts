/**
 * SQL of the overview: a handful of aggregate statements over the whole visible fleet, never one
 * per system or customer (it must answer within a second at 10,000 systems).
 */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { scheduleOfRow, type WindowSchedule } from '../maintenance/schedule.js';
import type { OverviewIncident, StatusCounts, WorstOffender } from '../../../contracts/overview.js';
import { systemStatus } from '../../../contracts/systems.js';

export const WORST_PER_CUSTOMER = 5;
export const INCIDENTS_SHOWN = 50;
/** The fleet's trend: this many points, an hour apart, the last one now. */
export const TREND_HOURS = 24;

/** Which scopes maintenance windows cover now: the systems inside them count as in maintenance. */
export interface CoveredScopes {
  customer: number[];
  cluster: number[];
  system: number[];
}

export interface CustomerAggregate {
  id: number;
  name: string;
  active: boolean;
  systems: number;
  byStatus: StatusCounts;
  openAlerts: { critical: number; warning: number; info: number };
  inMaintenance: number;
}

export interface WindowOfCustomer {
  customerId: number;
  timeZone: string;
  scopeType: keyof CoveredScopes;
  scopeId: number;
  schedule: WindowSchedule;
}

/** `customer_id IN (…)` for an account's customers; nothing for ADMIN. */
function visibleFilter(db: Knex, column: string, visible: Visible): Knex.Raw {
  return visible === null ? db.raw('true') : db.raw(`${column} = ANY(?::int[])`, [[...visible]]);
}

const statusColumns = systemStatus.options
  .map((status) => `count(s.id) FILTER (WHERE s.status = '${status}')::int AS "${status}"`)
  .join(', ');

export function createOverviewRepo(db: Knex) {
  return {
    /** Maintenance windows of the visible customers, with the zone they are read in. */
    async windows(visible: Visible): Promise<WindowOfCustomer[]> {
      const rows = await db('maintenance_windows as w')
        .join('customers as c', 'c.id', 'w.customer_id')
        .where(visibleFilter(db, 'w.customer_id', visible))
        .select('w.*', 'c.time_zone');
      return rows.map((r) => ({
        customerId: r.customer_id,
        timeZone: r.time_zone,
        scopeType: r.scope_type,
        scopeId: r.scope_id,
        schedule: scheduleOfRow(r),
      }));
    },

    /** Per visible customer: systems by status, systems in maintenance, open alerts by severity. */
    async customers(visible: Visible, covered: CoveredScopes): Promise<CustomerAggregate[]> {
      const { rows } = await db.raw<{ rows: (Record<string, unknown> & { id: number })[] }>(
        `WITH fleet AS (
           SELECT c.id, c.name, c.active, count(s.id)::int AS systems, ${statusColumns},
                  count(s.id) FILTER (WHERE s.customer_id = ANY(?::int[])
                                         OR s.cluster_id = ANY(?::int[])
                                         OR s.id = ANY(?::int[]))::int AS in_maintenance
             FROM customers c LEFT JOIN systems s ON s.customer_id = c.id AND s.kind = 'agent'
            WHERE ?
            GROUP BY c.id
         ), open_alerts AS (
           SELECT a.customer_id,
                  count(*) FILTER (WHERE a.severity = 'CRITICAL')::int AS critical,
                  count(*) FILTER (WHERE a.severity = 'WARNING')::int AS warning,
                  count(*) FILTER (WHERE a.severity = 'INFO')::int AS info
             FROM alerts a
            WHERE a.state = 'open' AND ?
            GROUP BY a.customer_id
         )
         SELECT fleet.*, coalesce(o.critical, 0) AS critical, coalesce(o.warning, 0) AS warning,
                coalesce(o.info, 0) AS info
           FROM fleet LEFT JOIN open_alerts o ON o.customer_id = fleet.id
          ORDER BY lower(fleet.name), fleet.id`,
        [
          [...covered.customer],
          [...covered.cluster],
          [...covered.system],
          visibleFilter(db, 'c.id', visible),
          visibleFilter(db, 'a.customer_id', visible),
        ],
      );
      return rows.map((r) => ({
        id: r.id,
        name: r['name'] as string,
        active: r['active'] as boolean,
        systems: r['systems'] as number,
        byStatus: Object.fromEntries(systemStatus.options.map((s) => [s, r[s] as number])) as StatusCounts,
        openAlerts: { critical: r['critical'] as number, warning: r['warning'] as number, info: r['info'] as number },
        inMaintenance: r['in_maintenance'] as number,
      }));
    },

    /**
     * Per customer, the systems with the most alert-minutes in [now − 24 h, now): each alert's
     * overlap with the window, an open one up to now. Open alerts and those resolved inside the
     * window are read through their partial indexes (alerts_open_identity_idx, alerts_resolved_at_idx),
     * so years of resolved alerts cost nothing.
     */
    async worstOffenders(visible: Visible, now: Date, limit = WORST_PER_CUSTOMER) {
      const since = new Date(now.getTime() - 24 * 3_600_000);
      const { rows } = await db.raw<{ rows: (WorstOffender & { customerId: number })[] }>(
        `WITH recent AS (
           SELECT system_id, customer_id, started_at, NULL::timestamptz AS resolved_at
             FROM alerts WHERE state = 'open' AND started_at < ?
           UNION ALL
           SELECT system_id, customer_id, started_at, resolved_at
             FROM alerts WHERE state = 'resolved' AND resolved_at > ? AND started_at < ?
         ), minutes AS (
           SELECT system_id,
                  sum(extract(epoch FROM least(coalesce(resolved_at, ?), ?) - greatest(started_at, ?))) / 60
                    AS minutes
             FROM recent WHERE ?
            GROUP BY system_id
         ), ranked AS (
           SELECT s.customer_id, s.id, s.name, s.status, floor(m.minutes)::int AS minutes,
                  row_number() OVER (PARTITION BY s.customer_id ORDER BY m.minutes DESC, s.name, s.id) AS rank
             FROM minutes m JOIN systems s ON s.id = m.system_id
            WHERE m.minutes >= 1
         )
         SELECT customer_id AS "customerId", id AS "systemId", name AS "systemName", status,
                minutes AS "alertMinutes"
           FROM ranked WHERE rank <= ? ORDER BY customer_id, rank`,
        [now, since, now, now, now, since, visibleFilter(db, 'customer_id', visible), limit],
      );
      return rows;
    },

    /**
     * The fleet's trend: at `now` and at each of the 23 hours before it, the systems with an offline
     * alert open and the alerts open. Only alerts open now or resolved inside the window are read
     * (their partial indexes), as for the worst offenders.
     */
    async trend(visible: Visible, now: Date): Promise<{ at: Date; systemsDown: number; alertsOpen: number }[]> {
      const since = new Date(now.getTime() - TREND_HOURS * 3_600_000);
      const { rows } = await db.raw<{ rows: { at: Date; systemsDown: number; alertsOpen: number }[] }>(
        `WITH hours AS (
           SELECT ?::timestamptz - make_interval(hours => n) AS at FROM generate_series(0, ?::int - 1) AS n
         ), recent AS (
           SELECT system_id, rule_kind, started_at, NULL::timestamptz AS resolved_at
             FROM alerts WHERE state = 'open' AND started_at <= ? AND ?
           UNION ALL
           SELECT system_id, rule_kind, started_at, resolved_at
             FROM alerts WHERE state = 'resolved' AND resolved_at > ? AND started_at <= ? AND ?
         )
         SELECT h.at,
                count(DISTINCT r.system_id) FILTER (WHERE r.rule_kind = 'offline')::int AS "systemsDown",
                count(r.system_id)::int AS "alertsOpen"
           FROM hours h
           LEFT JOIN recent r ON r.started_at <= h.at AND (r.resolved_at IS NULL OR r.resolved_at > h.at)
          GROUP BY h.at ORDER BY h.at`,
        [
          now,
          TREND_HOURS,
          now,
          visibleFilter(db, 'customer_id', visible),
          since,
          now,
          visibleFilter(db, 'customer_id', visible),
        ],
      );
      return rows;
    },

    /** Open incidents, newest first, with their open member alerts; and how many there are. */
    async openIncidents(visible: Visible, limit = INCIDENTS_SHOWN) {
      const { rows } = await db.raw<{ rows: (OverviewIncident & { startedAt: Date; total: number })[] }>(
        `SELECT i.id::int8 AS id, i.title, i.customer_id AS "customerId", c.name AS "customerName",
                i.cluster_id AS "clusterId", cl.name AS "clusterName", i.started_at AS "startedAt",
                (SELECT count(*) FROM alerts a WHERE a.incident_id = i.id AND a.state = 'open')::int AS "openAlerts",
                count(*) OVER ()::int AS total
           FROM incidents i
           JOIN customers c ON c.id = i.customer_id
           JOIN clusters cl ON cl.id = i.cluster_id
          WHERE i.state = 'open' AND ?
          ORDER BY i.started_at DESC, i.id DESC
          LIMIT ?`,
        [visibleFilter(db, 'i.customer_id', visible), limit],
      );
      return {
        total: rows[0]?.total ?? 0,
        shown: rows.map(({ total: _total, ...row }) => ({
          ...row,
          id: Number(row.id),
          startedAt: row.startedAt.toISOString(),
        })),
      };
    },
  };
}

export type OverviewRepo = ReturnType<typeof createOverviewRepo>;
