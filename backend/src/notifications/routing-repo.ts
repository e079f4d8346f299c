/**
 * SQL of routing: which channels an alert's event goes to, the channel outbox
 * (`channel_deliveries`), and what repeat, escalation and acknowledgement expiry find due. The
 * callers pass their transaction (the evaluation run, an acknowledgement), so a notification is
 * queued exactly when the change that causes it commits.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { alertOfRow, type Alert } from '../alerts/alert-json.js';
import type { NotificationEvent } from '../channels/payloads.js';

export interface AlertEventRef {
  alertId: number;
  event: NotificationEvent;
  /** The fleet incident's events: the global policy and global channels only. */
  adminsOnly?: boolean;
}

/** One event of one alert: an alert may lead its cluster incident and the fleet incident at once. */
export const eventKey = (e: { alertId: number; event: NotificationEvent; adminsOnly?: boolean }) =>
  `${e.alertId}:${e.event}:${e.adminsOnly ? 'admins' : 'all'}`;

export interface RoutedChannel extends AlertEventRef {
  channelId: number;
  name: string;
  type: string;
  /** The e-mail channel "accounts who may see it": sent through the account e-mails. */
  accounts: boolean;
  customerId: number;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
}

/** `p`: the policy that governs alert `a` — its customer's own, else the global one. */
const GOVERNING_POLICY = `JOIN LATERAL (SELECT * FROM notification_policies p
                     WHERE p.customer_id = a.customer_id OR p.customer_id IS NULL
                     ORDER BY p.customer_id NULLS LAST LIMIT 1) p ON true`;

const rank = (column: string) => `CASE ${column} WHEN 'CRITICAL' THEN 3 WHEN 'WARNING' THEN 2 ELSE 1 END`;

export interface DueReminder {
  alertId: number;
  systemId: number;
  customerId: number;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
  event: 'repeat' | 'escalated';
}

export function createRoutingRepo(db: Knex) {
  return {
    /**
     * The channels each event goes to: the customer's policy, or the global one where it has none; a
     * route matches when the alert's severity is at least its minimum; `escalated` goes to the policy's
     * escalation channels instead. Each channel once per event, only enabled, only when its own minimum
     * allows, and only global channels or the alert's customer's.
     */
    async routedChannels(events: readonly AlertEventRef[], trx: Knex = db): Promise<RoutedChannel[]> {
      if (!events.length) return [];
      const { rows } = await trx.raw<{ rows: Record<string, unknown>[] }>(
        `WITH ev AS (SELECT * FROM unnest(?::bigint[], ?::text[], ?::boolean[]) AS t(alert_id, event, admins_only)),
              pol AS (
                SELECT ev.alert_id, ev.event, ev.admins_only, a.severity, a.customer_id, p.routes, p.escalate_channel_ids
                  FROM ev JOIN alerts a ON a.id = ev.alert_id
                  JOIN LATERAL (SELECT * FROM notification_policies p
                                 WHERE (p.customer_id = a.customer_id AND NOT ev.admins_only) OR p.customer_id IS NULL
                                 ORDER BY p.customer_id NULLS LAST LIMIT 1) p ON true),
              routed AS (
                SELECT pol.alert_id, pol.event, pol.admins_only, pol.severity, pol.customer_id, cid::int AS channel_id
                  FROM pol, jsonb_array_elements(pol.routes) r, jsonb_array_elements_text(r->'channelIds') cid
                 WHERE pol.event <> 'escalated' AND ${rank('pol.severity')} >= ${rank("r->>'minSeverity'")}
                UNION
                SELECT pol.alert_id, pol.event, pol.admins_only, pol.severity, pol.customer_id, unnest(pol.escalate_channel_ids)
                  FROM pol WHERE pol.event = 'escalated')
         SELECT routed.alert_id, routed.event, routed.admins_only, routed.severity, routed.customer_id,
                ch.id AS channel_id, ch.name, ch.type, (ch.type = 'email' AND ch.target = 'accounts') AS accounts
           FROM routed JOIN notification_channels ch ON ch.id = routed.channel_id
          WHERE ch.enabled AND ${rank('routed.severity')} >= ${rank('ch.min_severity')}
            AND (ch.customer_id IS NULL OR (ch.customer_id = routed.customer_id AND NOT routed.admins_only))
          ORDER BY routed.alert_id, ch.id`,
        [events.map((e) => e.alertId), events.map((e) => e.event), events.map((e) => e.adminsOnly ?? false)],
      );
      return rows.map((r) => ({
        alertId: Number(r['alert_id']),
        event: r['event'] as NotificationEvent,
        adminsOnly: r['admins_only'] as boolean,
        channelId: r['channel_id'] as number,
        name: r['name'] as string,
        type: r['type'] as string,
        accounts: r['accounts'] as boolean,
        customerId: r['customer_id'] as number,
        severity: r['severity'] as RoutedChannel['severity'],
      }));
    },

    /**
     * One outbox row per routed channel (the accounts channel goes through the account e-mails);
     * `incidentOf` names the incident an event is about, by its eventKey.
     */
    async queueChannelDeliveries(
      routed: readonly RoutedChannel[],
      now: Date,
      incidentOf: ReadonlyMap<string, number> = new Map(),
      trx: Knex = db,
    ): Promise<number> {
      const rows = routed.filter((r) => !r.accounts);
      if (!rows.length) return 0;
      // one statement whatever the count: the columns as arrays, not one bind parameter per value
      await trx.raw(
        `INSERT INTO channel_deliveries
           (incident_id, alert_id, channel_id, channel_name, channel_type, event, delivery_id, created_at, next_attempt_at)
         SELECT t.incident_id, t.alert_id, t.channel_id, t.channel_name, t.channel_type, t.event, t.delivery_id, ?, ?
           FROM unnest(?::bigint[], ?::bigint[], ?::int[], ?::text[], ?::text[], ?::text[], ?::uuid[])
                AS t(incident_id, alert_id, channel_id, channel_name, channel_type, event, delivery_id)`,
        [
          now,
          now,
          rows.map((r) => incidentOf.get(eventKey(r)) ?? null) as number[],
          rows.map((r) => r.alertId),
          rows.map((r) => r.channelId),
          rows.map((r) => r.name),
          rows.map((r) => r.type),
          rows.map((r) => r.event),
          rows.map(() => randomUUID()),
        ],
      );
      return rows.length;
    },

    /**
     * Open, unacknowledged alerts whose policy wants a repeat (`repeatMinutes` since the last raised or
     * repeat notification) or an escalation (`escalateAfterMinutes` since raised, once).
     */
    async dueReminders(now: Date, customerId: number | null, trx: Knex = db): Promise<DueReminder[]> {
      type Row = { id: string; system_id: number; customer_id: number; severity: DueReminder['severity'] };
      const { rows } = await trx.raw<{ rows: (Row & { repeat: boolean; escalate: boolean })[] }>(
        `SELECT a.id, a.system_id, a.customer_id, a.severity,
                p.repeat_minutes IS NOT NULL
                  AND coalesce(a.notified_at, a.started_at) <= ?::timestamptz - make_interval(mins => p.repeat_minutes) AS repeat,
                p.escalate_after_minutes IS NOT NULL AND a.escalated_at IS NULL
                  AND a.started_at <= ?::timestamptz - make_interval(mins => p.escalate_after_minutes) AS escalate
           FROM alerts a
           ${GOVERNING_POLICY}
          WHERE a.state = 'open' AND a.acknowledged_at IS NULL AND a.incident_id IS NULL AND a.fleet_incident_id IS NULL
            AND (?::int IS NULL OR a.customer_id = ?)
            AND (p.repeat_minutes IS NOT NULL OR (p.escalate_after_minutes IS NOT NULL AND a.escalated_at IS NULL))`,
        [now, now, customerId, customerId],
      );
      const reminder = (r: Row, event: DueReminder['event']): DueReminder => ({
        alertId: Number(r.id),
        systemId: r.system_id,
        customerId: r.customer_id,
        severity: r.severity,
        event,
      });
      return rows.flatMap((r) => [
        ...(r.repeat ? [reminder(r, 'repeat')] : []),
        ...(r.escalate ? [reminder(r, 'escalated')] : []),
      ]);
    },

    /** Records that reminders went out: the next repeat counts from now; an escalation happens once. */
    async markReminded(reminders: readonly DueReminder[], now: Date, trx: Knex = db): Promise<void> {
      const repeated = reminders.filter((r) => r.event === 'repeat').map((r) => r.alertId);
      const escalated = reminders.filter((r) => r.event === 'escalated').map((r) => r.alertId);
      if (repeated.length)
        await trx('alerts').whereRaw('id = ANY(?::bigint[])', [repeated]).update({ notified_at: now });
      if (escalated.length)
        await trx('alerts').whereRaw('id = ANY(?::bigint[])', [escalated]).update({ escalated_at: now });
    },

    /** Acknowledgements past their `until`: cleared, so the alert counts as unacknowledged again. */
    async expireAcknowledgements(now: Date, customerId: number | null, trx: Knex = db): Promise<Alert[]> {
      const rows = await trx('alerts')
        .where({ state: 'open' })
        .whereRaw('(?::int IS NULL OR customer_id = ?)', [customerId, customerId])
        .whereNotNull('ack_until')
        .where('ack_until', '<=', now)
        .update({ acknowledged_at: null, acknowledged_by: null, ack_note: null, ack_until: null, notified_at: now })
        .returning<Record<string, unknown>[]>('*');
      return rows.map(alertOfRow);
    },

    /** What queueing needs to know of one alert. */
    async alertRef(
      alertId: number,
      trx: Knex = db,
    ): Promise<{ customerId: number; severity: 'INFO' | 'WARNING' | 'CRITICAL' } | undefined> {
      return trx('alerts').where({ id: alertId }).first('customer_id as customerId', 'severity');
    },
  };
}

export type RoutingRepo = ReturnType<typeof createRoutingRepo>;
