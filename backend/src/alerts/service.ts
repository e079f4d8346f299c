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
import { alertOfDetail, publishAlertTransition, type AlertDetail } from './alert-json.js';
import type { AlertQuery, AlertsRepo } from './repo.js';

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
  async function visibleAlert(principal: Principal, id: number): Promise<AlertDetail> {
    const alert = await repo.find(id);
    if (!alert || !canSeeCustomer(principal, alert.customerId)) throw new NotFound('No such alert');
    return alert;
  }

  return {
    async list(principal: Principal, q: Omit<AlertQuery, 'visible'>): Promise<AlertDetail[]> {
      return repo.list({ ...q, visible: visibleTo(principal) });
    },

    async get(principal: Principal, id: number): Promise<AlertDetail> {
      return visibleAlert(principal, id);
    },

    async acknowledge(
      actor: AuditActor,
      principal: Principal,
      id: number,
      { note, until }: { note: string | null; until: Date | null },
    ): Promise<AlertDetail> {
      const current = await visibleAlert(principal, id);
      if (!canWriteCustomer(principal, current.customerId)) throw new Forbidden('You may not change this customer');
      const now = clock.now();
      if (until && (until <= now || until.getTime() - now.getTime() > MAX_ACK_MS))
        throw new Invalid('until: must be in the future, at most 30 days ahead', { field: 'until' });
      const ack = { userId: principal.userId, note, until, at: now };
      const notify = await notifications?.prepare();
      // the notifications it causes are queued exactly when the acknowledgement commits
      const acknowledged = await repo.transaction(async (trx) => {
        if (!(await repo.acknowledge(id, ack, trx))) return false;
        await notify?.queue(trx, id);
        await audit.record(trx, actor, {
          action: 'alert.acknowledge',
          targetType: 'alert',
          targetId: id,
          customerId: current.customerId,
          after: { note, until },
        });
        return true;
      });
      if (!acknowledged) {
        const now = await visibleAlert(principal, id);
        throw new Conflict(
          now.state === 'resolved' ? 'This alert is resolved' : 'This alert is already acknowledged',
          now.state === 'resolved' ? 'alert_resolved' : 'already_acknowledged',
        );
      }
      notify?.send();
      const alert = await visibleAlert(principal, id);
      await publishAlertTransition(bus, 'acknowledged', alertOfDetail(alert));
      return alert;
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
