/** SQL of the alert e-mail outbox (`alert_notifications`, db/migrations/0007). */
import type { Knex } from 'knex';
import type { Severity } from '../alerts/alert-json.js';
import type { NotificationEvent } from '../channels/payloads.js';
import {
  appendAttempt,
  INCIDENT_COLUMNS,
  RULE_NAME,
  incidentJoin,
  incidentOf,
  type IncidentFacts,
} from './deliveries-repo.js';

export interface QueuedTransition {
  alertId: number;
  kind: NotificationEvent;
  customerId: number;
  severity: Severity;
  /** A notification about this cluster incident, sent with its first alert. */
  incidentId?: number | null;
  /** The fleet incident: only global channels of the global policy, only ADMIN accounts. */
  adminsOnly?: boolean;
}

export interface DueNotification {
  id: number;
  attempts: number;
  kind: NotificationEvent;
  email: string;
  alertId: number;
  ruleKey: string;
  ruleName: string;
  severity: Severity;
  instance: string;
  value: number | null;
  message: string;
  startedAt: Date;
  resolvedAt: Date | null;
  systemId: number;
  systemName: string;
  hostname: string;
  clusterId: number | null;
  customerId: number;
  customerName: string;
  /** The customer's IANA zone: the mail gives its times on that clock. */
  customerTimeZone: string;
  incident: IncidentFacts | null;
}

/**
 * One row per transition and recipient: every active account that may see the
 * system (ADMIN all; others through a grant of the alert's customer) whose
 * minimum severity is at most the alert's. Runs inside the evaluation's transaction.
 */
export async function queueNotifications(
  trx: Knex,
  transitions: readonly QueuedTransition[],
  now: Date,
): Promise<number> {
  if (!transitions.length) return 0;
  // 'NONE' (e-mails off) ranks above every alert severity, so it matches nothing
  const rank = (column: string) =>
    `CASE ${column} WHEN 'NONE' THEN 4 WHEN 'CRITICAL' THEN 3 WHEN 'WARNING' THEN 2 ELSE 1 END`;
  const result = await trx.raw(
    `INSERT INTO alert_notifications (alert_id, user_id, kind, incident_id, created_at)
     SELECT t.alert_id, u.id, t.kind, t.incident_id, ?
       FROM unnest(?::bigint[], ?::text[], ?::int[], ?::text[], ?::bigint[], ?::boolean[])
            AS t(alert_id, kind, customer_id, severity, incident_id, admins_only)
       JOIN users u ON NOT u.disabled
        AND ${rank('u.notify_min_severity')} <= ${rank('t.severity')}
        AND (u.role = 'ADMIN'
             OR NOT t.admins_only AND EXISTS (SELECT 1 FROM user_customer_grants g WHERE g.user_id = u.id AND g.customer_id = t.customer_id))`,
    [
      now,
      transitions.map((t) => t.alertId),
      transitions.map((t) => t.kind),
      transitions.map((t) => t.customerId),
      transitions.map((t) => t.severity),
      // unnest() takes NULLs inside the array: no incident
      transitions.map((t) => t.incidentId ?? null) as number[],
      transitions.map((t) => t.adminsOnly ?? false),
    ],
  );
  return (result as { rowCount: number }).rowCount;
}

export function createNotificationsRepo(db: Knex) {
  return {
    /** Pending rows older than `staleBefore` are no news any more: dropped, not sent late. */
    async dropStale(staleBefore: Date): Promise<number> {
      return db('alert_notifications')
        .where({ status: 'pending' })
        .where('created_at', '<', staleBefore)
        .update({ status: 'dropped', last_error: 'too old to send' });
    },

    async due(limit: number): Promise<DueNotification[]> {
      const result = await db.raw<{ rows: Record<string, unknown>[] }>(
        `SELECT n.id, n.attempts, n.kind, u.email, a.id AS alert_id, a.rule_key, a.severity, a.instance, a.value,
                a.message, a.started_at, a.resolved_at, s.id AS system_id, s.name AS system_name, s.hostname,
                s.cluster_id, c.id AS customer_id, c.name AS customer_name, c.time_zone AS customer_time_zone, ${INCIDENT_COLUMNS},
                ${RULE_NAME} AS rule_name
           FROM alert_notifications n
           JOIN users u ON u.id = n.user_id AND NOT u.disabled
           JOIN alerts a ON a.id = n.alert_id
           JOIN systems s ON s.id = a.system_id
           JOIN customers c ON c.id = a.customer_id
           ${incidentJoin('n')}
          WHERE n.status = 'pending'
          ORDER BY n.id
          LIMIT ?`,
        [limit],
      );
      return result.rows.map((r) => ({
        id: Number(r['id']),
        attempts: r['attempts'] as number,
        kind: r['kind'] as NotificationEvent,
        email: r['email'] as string,
        alertId: Number(r['alert_id']),
        ruleKey: r['rule_key'] as string,
        ruleName: r['rule_name'] as string,
        severity: r['severity'] as Severity,
        instance: r['instance'] as string,
        value: r['value'] as number | null,
        message: r['message'] as string,
        startedAt: r['started_at'] as Date,
        resolvedAt: (r['resolved_at'] as Date | null) ?? null,
        systemId: r['system_id'] as number,
        systemName: r['system_name'] as string,
        hostname: r['hostname'] as string,
        clusterId: (r['cluster_id'] as number | null) ?? null,
        customerId: r['customer_id'] as number,
        customerName: r['customer_name'] as string,
        customerTimeZone: r['customer_time_zone'] as string,
        incident: incidentOf(r),
      }));
    },

    /** Rows of accounts disabled since they were queued. */
    async dropForDisabledAccounts(): Promise<void> {
      await db.raw(
        `UPDATE alert_notifications n SET status = 'dropped', last_error = 'account disabled'
           FROM users u WHERE u.id = n.user_id AND u.disabled AND n.status = 'pending'`,
      );
    },

    /**
     * Rows of accounts that may no longer see the alert's customer (grant withdrawn, role or
     * customer changed since they were queued): rights are read when the mail goes, as on every request.
     */
    async dropForLostRights(): Promise<void> {
      await db.raw(
        `UPDATE alert_notifications n SET status = 'dropped', last_error = 'may no longer see the customer'
           FROM users u, alerts a
          WHERE u.id = n.user_id AND a.id = n.alert_id AND n.status = 'pending' AND u.role <> 'ADMIN'
            AND NOT EXISTS (SELECT 1 FROM user_customer_grants g WHERE g.user_id = u.id AND g.customer_id = a.customer_id)`,
      );
    },

    async markSent(id: number, now: Date): Promise<void> {
      await db('alert_notifications')
        .where({ id })
        .update({
          status: 'sent',
          sent_at: now,
          last_attempt_at: now,
          attempts: db.raw('attempts + 1'),
          attempt_log: appendAttempt(db, { at: now, status: null, error: null }),
        });
    },

    async markFailed(id: number, error: string, now: Date, maxAttempts: number): Promise<void> {
      await db('alert_notifications')
        .where({ id })
        .update({
          attempts: db.raw('attempts + 1'),
          attempt_log: appendAttempt(db, { at: now, status: null, error: error.slice(0, 500) }),
          last_error: error.slice(0, 500),
          last_attempt_at: now,
          status: db.raw(`CASE WHEN attempts + 1 >= ? THEN 'failed' ELSE 'pending' END`, [maxAttempts]),
        });
    },

    async markDropped(id: number, reason: string): Promise<void> {
      await db('alert_notifications').where({ id }).update({ status: 'dropped', last_error: reason });
    },
  };
}

export type NotificationsRepo = ReturnType<typeof createNotificationsRepo>;
