/**
 * What availability reports read (alerts, maintenance windows, the customer's inactive periods) and
 * what the monthly report e-mail keeps (its settings per customer, one delivery row per month).
 */
import type { Knex } from 'knex';
import { scheduleOfRow, type WindowSchedule } from '../maintenance/schedule.js';
import { transactionOf } from '../lib/transaction.js';

/** Attempts of one month's mail: the first and two retries, an hour apart (housekeeping's pace). */
export const MAX_ATTEMPTS = 3;
/** A claim older than this is from a process that stopped mid-send (one instance only, runs hourly). */
const STALE_CLAIM_MS = 3_600_000;

export interface ReportCustomer {
  id: number;
  name: string;
  timeZone: string;
  active: boolean;
}

export interface ReportSystem {
  id: number;
  name: string;
  /** 'agent' (a host) or 'check' (a network check, backed by a system row of its own). */
  kind: 'agent' | 'check';
  clusterId: number | null;
  clusterName: string | null;
  createdAt: Date;
}

export interface ReportAlert {
  id: number;
  systemId: number;
  startedAt: Date;
  resolvedAt: Date | null;
}

/** One definition of a maintenance window and when it was in force: [validFrom, validTo), validTo null while it still is. */
export interface ReportWindow {
  scopeType: 'customer' | 'cluster' | 'system';
  scopeId: number;
  schedule: WindowSchedule;
  validFrom: Date;
  validTo: Date | null;
}

export interface MonthlySettingsRow {
  customerId: number;
  enabled: boolean;
  recipients: string[];
}

export interface DeliveryRow {
  customerId: number;
  month: string;
  status: 'sending' | 'sent' | 'failed';
  attempts: number;
  recipients: string[];
  lastError: string | null;
  claimedAt: Date;
  sentAt: Date | null;
}

const deliveryOf = (r: Record<string, unknown>): DeliveryRow => ({
  customerId: r['customer_id'] as number,
  month: r['month'] as string,
  status: r['status'] as DeliveryRow['status'],
  attempts: r['attempts'] as number,
  recipients: r['recipients'] as string[],
  lastError: (r['last_error'] as string | null) ?? null,
  claimedAt: r['claimed_at'] as Date,
  sentAt: (r['sent_at'] as Date | null) ?? null,
});

/**
 * Each (system of the customer, alert rule key) with the rule version that applies to it: the most
 * specific scope wins (system, cluster, customer, then the global rule), as the evaluation's rule
 * book decides. A disabled version still decides whether its past alerts count.
 */
function effectiveRules(db: Knex, customerId: number): Knex.QueryBuilder {
  return (
    db('systems as s')
      .join('alert_rules as r', (j) =>
        j
          .onNull('r.scope_type')
          .orOn((o) => o.on('r.scope_type', db.raw('?', ['customer'])).andOn('r.scope_id', 's.customer_id'))
          .orOn((o) => o.on('r.scope_type', db.raw('?', ['cluster'])).andOn('r.scope_id', 's.cluster_id'))
          .orOn((o) => o.on('r.scope_type', db.raw('?', ['system'])).andOn('r.scope_id', 's.id')),
      )
      .where('s.customer_id', customerId)
      // only keys of which some version counts (two by default): the rest never count, and leaving
      // them out keeps this at systems × 2 rows rather than systems × 36 for a customer of thousands
      .whereIn('r.key', db('alert_rules').where('counts_as_downtime', true).select('key'))
      .distinctOn('s.id', 'r.key')
      // the first row of each pair is the one that applies: system, cluster, customer, then global
      .orderByRaw(
        `s.id, r.key, CASE r.scope_type WHEN 'system' THEN 0 WHEN 'cluster' THEN 1 WHEN 'customer' THEN 2 ELSE 3 END`,
      )
      .select('s.id as system_id', 'r.key', 'r.name', 'r.counts_as_downtime')
  );
}

export function createReportsRepo(db: Knex) {
  return {
    transaction: transactionOf(db),

    async findCustomer(id: number): Promise<ReportCustomer | null> {
      const row = await db('customers').where({ id }).first('id', 'name', 'time_zone', 'active');
      return row ? { id: row.id, name: row.name, timeZone: row.time_zone, active: row.active } : null;
    },

    async systemsOf(customerId: number): Promise<ReportSystem[]> {
      const rows = await db('systems as s')
        .leftJoin('clusters as c', 'c.id', 's.cluster_id')
        .where('s.customer_id', customerId)
        .orderBy([{ column: 's.name' }, { column: 's.id' }])
        .select('s.id', 's.name', 's.kind', 's.cluster_id', 'c.name as cluster_name', 's.created_at');
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        kind: r.kind,
        clusterId: r.cluster_id,
        clusterName: r.cluster_name,
        createdAt: r.created_at,
      }));
    },

    /**
     * The alerts of the customer's systems open at some time in [from, to) that count as downtime:
     * offline alerts, and alerts of a rule whose effective version for that system (see
     * effectiveRules) says it counts as downtime.
     */
    async downAlerts(customerId: number, from: Date, to: Date): Promise<ReportAlert[]> {
      const rows = await db('alerts as a')
        .join('systems as s', 's.id', 'a.system_id')
        .leftJoin(effectiveRules(db, customerId).as('e'), (j) =>
          j.on('e.system_id', 'a.system_id').andOn('e.key', 'a.rule_key'),
        )
        .where('s.customer_id', customerId)
        .andWhere((q) => q.where('a.rule_kind', 'offline').orWhere('e.counts_as_downtime', true))
        .andWhere('a.started_at', '<', to)
        .andWhere((q) => q.whereNull('a.resolved_at').orWhere('a.resolved_at', '>', from))
        .orderBy('a.id')
        .select('a.id', 'a.system_id', 'a.started_at', 'a.resolved_at');
      return rows.map((r) => ({
        id: Number(r.id),
        systemId: r.system_id,
        startedAt: r.started_at,
        resolvedAt: r.resolved_at,
      }));
    },

    /** The rules whose alerts count as downtime for some system of the customer, by name (what a report counted). */
    async downtimeRules(customerId: number): Promise<Array<{ key: string; name: string }>> {
      const rows = await db
        .from(effectiveRules(db, customerId).as('e'))
        .where('e.counts_as_downtime', true)
        .distinct('e.key', 'e.name')
        .orderBy(['e.name', 'e.key']);
      return rows.map((r) => ({ key: r.key, name: r.name }));
    },

    /**
     * The definitions of maintenance windows in force at some time in [from, to) over the customer or
     * its present clusters and systems (db/migrations/0017): matched by scope, not by the window's
     * customer, so a system's window counts in the report of the customer the system is under now.
     */
    async windowsOf(customerId: number, from: Date, to: Date): Promise<ReportWindow[]> {
      const rows = await db('maintenance_window_versions as v')
        .where('v.valid_from', '<', to)
        .andWhere((q) => q.whereNull('v.valid_to').orWhere('v.valid_to', '>', from))
        .andWhere((q) =>
          q
            .where({ 'v.scope_type': 'customer', 'v.scope_id': customerId })
            .orWhere((c) =>
              c
                .where('v.scope_type', 'cluster')
                .whereIn('v.scope_id', db('clusters').select('id').where({ customer_id: customerId })),
            )
            .orWhere((c) =>
              c
                .where('v.scope_type', 'system')
                .whereIn('v.scope_id', db('systems').select('id').where({ customer_id: customerId })),
            ),
        )
        .orderBy([{ column: 'v.window_id' }, { column: 'v.valid_from' }])
        .select('v.*');
      return rows.map((r) => ({
        scopeType: r.scope_type,
        scopeId: r.scope_id,
        schedule: scheduleOfRow(r),
        validFrom: r.valid_from,
        validTo: r.valid_to,
      }));
    },

    async inactivePeriods(customerId: number, from: Date, to: Date): Promise<Array<{ start: Date; end: Date | null }>> {
      const rows = await db('customer_inactive_periods')
        .where({ customer_id: customerId })
        .andWhere('started_at', '<', to)
        .andWhere((q) => q.whereNull('ended_at').orWhere('ended_at', '>', from))
        .orderBy('started_at')
        .select('started_at', 'ended_at');
      return rows.map((r) => ({ start: r.started_at, end: r.ended_at }));
    },

    async monthlySettings(customerId: number, q: Knex = db): Promise<MonthlySettingsRow> {
      const row = await q('customer_report_settings').where({ customer_id: customerId }).first();
      return row
        ? { customerId, enabled: row.monthly_enabled, recipients: row.recipients }
        : { customerId, enabled: false, recipients: [] };
    },

    async saveMonthlySettings(row: MonthlySettingsRow, now: Date, q: Knex = db): Promise<void> {
      await q('customer_report_settings')
        .insert({
          customer_id: row.customerId,
          monthly_enabled: row.enabled,
          recipients: row.recipients,
          updated_at: now,
        })
        .onConflict('customer_id')
        .merge(['monthly_enabled', 'recipients', 'updated_at']);
    },

    /** The customers that want the monthly e-mail, with their zone. */
    async monthlySubscribers(): Promise<Array<ReportCustomer & { recipients: string[] }>> {
      const rows = await db('customer_report_settings as r')
        .join('customers as c', 'c.id', 'r.customer_id')
        .where('r.monthly_enabled', true)
        .orderBy('c.id')
        .select('c.id', 'c.name', 'c.time_zone', 'c.active', 'r.recipients');
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        timeZone: r.time_zone,
        active: r.active,
        recipients: r.recipients,
      }));
    },

    async deliveries(customerId: number, limit: number): Promise<DeliveryRow[]> {
      const rows = await db('report_deliveries')
        .where({ customer_id: customerId })
        .orderBy('month', 'desc')
        .limit(limit);
      return rows.map(deliveryOf);
    },

    async findDelivery(customerId: number, month: string): Promise<DeliveryRow | null> {
      const row = await db('report_deliveries').where({ customer_id: customerId, month }).first();
      return row ? deliveryOf(row) : null;
    },

    /**
     * Takes the month's delivery for one attempt: inserts it, or takes back a failed one (at most
     * MAX_ATTEMPTS in all) or one left `sending` by a process that died mid-send. False when it is
     * sent, given up, or held by a running attempt: the key (customer, month) makes it once a month.
     */
    async claimDelivery(customerId: number, month: string, recipients: string[], now: Date): Promise<boolean> {
      const result = await db.raw(
        `INSERT INTO report_deliveries (customer_id, month, status, attempts, recipients, claimed_at)
         VALUES (?, ?, 'sending', 1, ?, ?)
         ON CONFLICT (customer_id, month) DO UPDATE
           SET status = 'sending', attempts = report_deliveries.attempts + 1,
               recipients = EXCLUDED.recipients, claimed_at = EXCLUDED.claimed_at
           WHERE report_deliveries.attempts < ?
             AND (report_deliveries.status = 'failed'
               OR (report_deliveries.status = 'sending' AND report_deliveries.claimed_at < ?))
         RETURNING customer_id`,
        [customerId, month, recipients, now, MAX_ATTEMPTS, new Date(now.getTime() - STALE_CLAIM_MS)],
      );
      return (result.rows as unknown[]).length === 1;
    },

    async finishDelivery(
      customerId: number,
      month: string,
      outcome: { status: 'sent'; at: Date } | { status: 'failed'; error: string },
      q: Knex = db,
    ): Promise<void> {
      await q('report_deliveries')
        .where({ customer_id: customerId, month })
        .update(
          outcome.status === 'sent'
            ? { status: 'sent', sent_at: outcome.at, last_error: null }
            : { status: 'failed', last_error: outcome.error },
        );
    },
  };
}

export type ReportsRepo = ReturnType<typeof createReportsRepo>;
