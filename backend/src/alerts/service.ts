/**
 * Alerts as accounts see them, and the acknowledgement (contracts.md "Live
 * channel data", issue 5): ADMIN or an OPERATOR granted the customer
 * acknowledges; the alert stays open, marked with who, when and a note, and the
 * 'acknowledged' transition is published once, after the change is stored.
 */
import type { Bus } from '../bus/bus.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Conflict, Forbidden, NotFound } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { publishAlertTransition, toAlertJson } from './alert-json.js';
import type { AlertDetailRow, AlertQuery, AlertsRepo } from './repo.js';

export function alertView(row: AlertDetailRow) {
  return {
    ...toAlertJson(row),
    ruleKind: row.rule_kind,
    systemName: row.system_name,
    customerName: row.customer_name,
    acknowledgedAt: row.acknowledged_at?.toISOString() ?? null,
    acknowledgedBy:
      row.acknowledged_by === null ? null : { id: row.acknowledged_by, name: row.acknowledged_by_name ?? '' },
    ackNote: row.ack_note,
  };
}

export type AlertView = ReturnType<typeof alertView>;

export function createAlertsService({ repo, bus, clock }: { repo: AlertsRepo; bus: Bus; clock: Clock }) {
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

    async acknowledge(principal: Principal, id: number, note: string | null): Promise<AlertView> {
      const current = await visibleAlert(principal, id);
      if (!canWriteCustomer(principal, current.customer_id)) throw new Forbidden('You may not change this customer');
      if (!(await repo.acknowledge(id, principal.userId, note, clock.now()))) {
        const now = await visibleAlert(principal, id);
        throw new Conflict(
          now.state === 'resolved' ? 'This alert is resolved' : 'This alert is already acknowledged',
          now.state === 'resolved' ? 'alert_resolved' : 'already_acknowledged',
        );
      }
      const row = await visibleAlert(principal, id);
      await publishAlertTransition(bus, 'acknowledged', toAlertJson(row));
      return alertView(row);
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
