/** SQL of the channel outbox and the delivery log (`channel_deliveries`, migration 0010). */
import type { Knex } from 'knex';
import type { NotificationEvent } from '../channels/payloads.js';
import type { ChannelType, Severity } from '../channels/schema.js';

export interface DueDelivery {
  id: number;
  deliveryId: string;
  event: NotificationEvent;
  attempts: number;
  createdAt: Date;
  channel: { id: number; type: ChannelType; target: string; secret: string | null; enabled: boolean };
  alert: {
    id: number;
    ruleKey: string;
    ruleName: string;
    severity: Severity;
    state: 'open' | 'resolved';
    instance: string;
    value: number | null;
    message: string;
    startedAt: Date;
    resolvedAt: Date | null;
    acknowledgedAt: Date | null;
    ackUntil: Date | null;
  };
  system: { id: number; name: string; hostname: string; clusterId: number | null };
  customer: { id: number; name: string };
  incident: IncidentFacts | null;
}

export interface IncidentFacts {
  id: number;
  title: string;
  state: 'open' | 'resolved';
  /** null: the fleet incident (Argus receives no reports from a large share of the whole fleet). */
  clusterId: number | null;
  /** Systems (offline alerts) it groups. */
  systems: number;
}

/** The name of alert `a`'s rule (the global rule's name first), or its key when the rule is gone. */
export const RULE_NAME = `coalesce(
  (SELECT r.name FROM alert_rules r WHERE r.key = a.rule_key ORDER BY r.scope_type NULLS FIRST LIMIT 1),
  (SELECT r.name FROM event_rules r WHERE r.key = a.rule_key ORDER BY r.scope_type NULLS FIRST LIMIT 1),
  a.rule_key)`;

/** The columns and join that describe a notification's incident (alias `inc`, from `<table>.incident_id`). */
export const INCIDENT_COLUMNS = `inc.id AS incident_id, inc.title AS incident_title, inc.state AS incident_state,
  inc.cluster_id AS incident_cluster_id,
  CASE WHEN inc.kind = 'fleet' THEN (SELECT count(*)::int FROM alerts m WHERE m.fleet_incident_id = inc.id)
       ELSE (SELECT count(*)::int FROM alerts m WHERE m.incident_id = inc.id) END AS incident_systems`;
export const incidentJoin = (table: string) => `LEFT JOIN incidents inc ON inc.id = ${table}.incident_id`;

export function incidentOf(r: Record<string, unknown>): IncidentFacts | null {
  if (r['incident_id'] === null || r['incident_id'] === undefined) return null;
  return {
    id: Number(r['incident_id']),
    title: r['incident_title'] as string,
    state: r['incident_state'] as 'open' | 'resolved',
    clusterId: (r['incident_cluster_id'] as number | null) ?? null,
    systems: r['incident_systems'] as number,
  };
}

export interface LogEntry {
  id: number;
  channelId: number | null;
  channelName: string;
  channelType: string;
  event: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  recipient: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  sentAt: Date | null;
  attemptLog: Attempt[];
}

export interface Attempt {
  at: string;
  status: number | null;
  error: string | null;
}

/** `attempt_log` with one more try at its end (the log of every attempt). */
export function appendAttempt(db: Knex, attempt: { at: Date; status: number | null; error: string | null }) {
  return db.raw(
    `attempt_log || jsonb_build_array(jsonb_build_object('at', ?::text, 'status', ?::int, 'error', ?::text))`,
    [attempt.at.toISOString(), attempt.status, attempt.error],
  );
}

export function createDeliveriesRepo(db: Knex) {
  return {
    /** Pending rows whose time has come, with what their payload needs; a deleted channel's rows are dropped first. */
    async due(now: Date, limit: number): Promise<DueDelivery[]> {
      await db('channel_deliveries')
        .where({ status: 'pending' })
        .whereNull('channel_id')
        .update({ status: 'dropped', last_error: 'channel deleted' });
      const { rows } = await db.raw<{ rows: Record<string, unknown>[] }>(
        `SELECT d.id, d.delivery_id, d.event, d.attempts, d.created_at,
                ch.id AS channel_id, ch.type, ch.target, ch.secret, ch.enabled,
                a.id AS alert_id, a.rule_key, a.severity, a.state, a.instance, a.value, a.message,
                a.started_at, a.resolved_at, a.acknowledged_at, a.ack_until,
                s.id AS system_id, s.name AS system_name, s.hostname, s.cluster_id,
                c.id AS customer_id, c.name AS customer_name, ${INCIDENT_COLUMNS},
                ${RULE_NAME} AS rule_name
           FROM channel_deliveries d
           JOIN notification_channels ch ON ch.id = d.channel_id
           JOIN alerts a ON a.id = d.alert_id
           JOIN systems s ON s.id = a.system_id
           JOIN customers c ON c.id = a.customer_id
           ${incidentJoin('d')}
          WHERE d.status = 'pending' AND d.next_attempt_at <= ?
          ORDER BY d.next_attempt_at, d.id
          LIMIT ?`,
        [now, limit],
      );
      return rows.map((r) => ({
        id: Number(r['id']),
        deliveryId: r['delivery_id'] as string,
        event: r['event'] as NotificationEvent,
        attempts: r['attempts'] as number,
        createdAt: r['created_at'] as Date,
        channel: {
          id: r['channel_id'] as number,
          type: r['type'] as ChannelType,
          target: r['target'] as string,
          secret: (r['secret'] as string | null) ?? null,
          enabled: r['enabled'] as boolean,
        },
        alert: {
          id: Number(r['alert_id']),
          ruleKey: r['rule_key'] as string,
          ruleName: r['rule_name'] as string,
          severity: r['severity'] as Severity,
          state: r['state'] as 'open' | 'resolved',
          instance: r['instance'] as string,
          value: (r['value'] as number | null) ?? null,
          message: r['message'] as string,
          startedAt: r['started_at'] as Date,
          resolvedAt: (r['resolved_at'] as Date | null) ?? null,
          acknowledgedAt: (r['acknowledged_at'] as Date | null) ?? null,
          ackUntil: (r['ack_until'] as Date | null) ?? null,
        },
        system: {
          id: r['system_id'] as number,
          name: r['system_name'] as string,
          hostname: r['hostname'] as string,
          clusterId: (r['cluster_id'] as number | null) ?? null,
        },
        customer: { id: r['customer_id'] as number, name: r['customer_name'] as string },
        incident: incidentOf(r),
      }));
    },

    async markSent(id: number, status: number | null, now: Date): Promise<void> {
      await db('channel_deliveries')
        .where({ id })
        .update({
          status: 'sent',
          attempts: db.raw('attempts + 1'),
          attempt_log: appendAttempt(db, { at: now, status, error: null }),
          last_status: status,
          last_error: null,
          last_attempt_at: now,
          sent_at: now,
        });
    },

    /** A failed attempt: again at `retryAt`, or finally failed when there is none. */
    async markFailed(id: number, failure: { status: number | null; error: string }, now: Date, retryAt: Date | null) {
      await db('channel_deliveries')
        .where({ id })
        .update({
          attempts: db.raw('attempts + 1'),
          attempt_log: appendAttempt(db, { at: now, status: failure.status, error: failure.error.slice(0, 500) }),
          last_status: failure.status,
          last_error: failure.error.slice(0, 500),
          last_attempt_at: now,
          status: retryAt ? 'pending' : 'failed',
          ...(retryAt ? { next_attempt_at: retryAt } : {}),
        });
    },

    async markDropped(id: number, reason: string): Promise<void> {
      await db('channel_deliveries').where({ id }).update({ status: 'dropped', last_error: reason });
    },

    /** Every delivery of one alert, channels and account e-mails, oldest first (the delivery log). */
    async log(alertId: number, trx: Knex = db): Promise<LogEntry[]> {
      const { rows } = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `SELECT id, channel_id, channel_name, channel_type, event, status, attempts, last_status, last_error,
                NULL AS recipient, created_at, last_attempt_at, sent_at, attempt_log
           FROM channel_deliveries WHERE alert_id = ?
         UNION ALL
         SELECT n.id, ch.id, coalesce(ch.name, 'Accounts who may see it'), 'email', n.kind, n.status, n.attempts,
                NULL, n.last_error, u.email, n.created_at, n.last_attempt_at, n.sent_at, n.attempt_log
           FROM alert_notifications n
           JOIN users u ON u.id = n.user_id
           LEFT JOIN LATERAL (SELECT id, name FROM notification_channels
                               WHERE type = 'email' AND target = 'accounts' ORDER BY id LIMIT 1) ch ON true
          WHERE n.alert_id = ?
          ORDER BY created_at, id`,
        [alertId, alertId],
      );
      return rows.map((r) => ({
        id: Number(r['id']),
        channelId: (r['channel_id'] as number | null) ?? null,
        channelName: r['channel_name'] as string,
        channelType: r['channel_type'] as string,
        event: r['event'] as string,
        status: r['status'] as string,
        attempts: r['attempts'] as number,
        lastStatus: (r['last_status'] as number | null) ?? null,
        lastError: (r['last_error'] as string | null) ?? null,
        recipient: (r['recipient'] as string | null) ?? null,
        createdAt: r['created_at'] as Date,
        lastAttemptAt: (r['last_attempt_at'] as Date | null) ?? null,
        sentAt: (r['sent_at'] as Date | null) ?? null,
        attemptLog: r['attempt_log'] as Attempt[],
      }));
    },
  };
}

export type DeliveriesRepo = ReturnType<typeof createDeliveriesRepo>;
