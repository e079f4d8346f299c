/**
 * Alerts as accounts see them, and the acknowledgement (docs/rules.md
 * "Acknowledgement"): ADMIN or an OPERATOR granted the customer
 * acknowledges; the alert stays open, marked with who, when and a note, and the
 * 'acknowledged' transition is published once, after the change is stored.
 */
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { publishAlertTransition, toAlertJson } from './alert-json.js';
import type { AlertDetailRow, AlertQuery, AlertsRepo } from './repo.js';

export function alertView(row: AlertDetailRow) {
  return {
    ...toAlertJson(row),
    ruleKind: row.rule_kind,
    systemName: row.system_name,
    customerName: row.customer_name,
    customerTimeZone: row.customer_time_zone,
    acknowledgedAt: row.acknowledged_at?.toISOString() ?? null,
    acknowledgedBy:
      row.acknowledged_by === null ? null : { id: row.acknowledged_by, name: row.acknowledged_by_name ?? '' },
    ackNote: row.ack_note,
    ackUntil: row.ack_until?.toISOString() ?? null,
    incidentId: row.incident_id === null ? null : Number(row.incident_id),
    flapping: row.flapping_since !== null,
  };
}

export type AlertView = ReturnType<typeof alertView>;

export interface AlertsDeps {
  repo: AlertsRepo;
  bus: Bus;
  clock: Clock;
  /** The `acknowledged` notifications; absent, an acknowledgement notifies nobody. */
  notifications?: AckNotifications;
  audit: AuditTrail;
}

export interface AckNotifications {
  /**
   * Reads what one acknowledgement's notifications need outside the transaction; answers the step
   * that queues them inside it and the send after the commit (each acknowledgement its own pair).
   */
  prepare(): Promise<{ queue(trx: Knex.Transaction, alertId: number): Promise<void>; send(): void }>;
}

/** Longest acknowledgement expiry: past it an alert would be forgotten rather than snoozed. */
export const MAX_ACK_MS = 30 * 86_400_000;

export function createAlertsService({ repo, bus, clock, notifications, audit }: AlertsDeps) {
  async function visibleAlert(principal: Principal, id: number): Promise<AlertDetailRow> {
    const row = await repo.find(id);
    if (!row || !canSeeCustomer(principal, row.customer_id)) throw new NotFound('No such alert');
    return row;
  }

  return {
    async list(principal: Principal, q: Omit<AlertQuery, 'visible'>): Promise<AlertView[]> {
      return (await repo.list({ ...q, visible: visibleTo(principal) })).map(alertView);
    },

    async get(principal: Principal, id: number): Promise<AlertView> {
      return alertView(await visibleAlert(principal, id));
    },

    async acknowledge(
      actor: AuditActor,
      principal: Principal,
      id: number,
      { note, until }: { note: string | null; until: Date | null },
    ): Promise<AlertView> {
      const current = await visibleAlert(principal, id);
      if (!canWriteCustomer(principal, current.customer_id)) throw new Forbidden('You may not change this customer');
      const now = clock.now();
      if (until && (until <= now || until.getTime() - now.getTime() > MAX_ACK_MS))
        throw new Invalid('until: must be in the future, at most 30 days ahead', { field: 'until' });
      const ack = { userId: principal.userId, note, until, at: now };
      const notify = await notifications?.prepare();
      const within = async (trx: Knex.Transaction) => {
        await notify?.queue(trx, id);
        await audit.record(trx, actor, {
          action: 'alert.acknowledge',
          targetType: 'alert',
          targetId: id,
          customerId: current.customer_id,
          after: { note, until },
        });
      };
      if (!(await repo.acknowledge(id, ack, within))) {
        const now = await visibleAlert(principal, id);
        throw new Conflict(
          now.state === 'resolved' ? 'This alert is resolved' : 'This alert is already acknowledged',
          now.state === 'resolved' ? 'alert_resolved' : 'already_acknowledged',
        );
      }
      notify?.send();
      const row = await visibleAlert(principal, id);
      await publishAlertTransition(bus, 'acknowledged', toAlertJson(row));
      return alertView(row);
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
