/**
 * The one shape of an alert outside the database: the contract's `Alert`. The repos map an `alerts`
 * row to it once (`alertOfRow`); domain code, the REST answers, the bus event of topic `alert` and
 * the live channel's `msg` data (docs/protocol.md "Live channel") all use it, so a console never
 * sees two spellings.
 */
import type { Bus } from '../bus/bus.js';
import { alert, type Alert, type AlertDetail } from '../../../contracts/alerts.js';

export type { Alert, AlertDetail };
export type Severity = Alert['severity'];
export type AlertState = Alert['state'];
/** `unacknowledged`: an acknowledgement's `until` passed; the alert counts as unacknowledged again. */
export type AlertTransition = 'raised' | 'resolved' | 'acknowledged' | 'unacknowledged';

/** The `alerts` columns an `Alert` is made of (for a RETURNING or a SELECT). */
export const ALERT_COLUMNS = [
  'id',
  'rule_key',
  'severity',
  'system_id',
  'customer_id',
  'instance',
  'value',
  'message',
  'state',
  'acknowledged_at',
  'started_at',
  'resolved_at',
] as const;

/** An `alerts` row as Knex returns it: mapped here and nowhere else. */
export function alertOfRow(row: Record<string, unknown>): Alert {
  const resolvedAt = row['resolved_at'] as Date | null;
  return {
    id: Number(row['id']),
    ruleKey: row['rule_key'] as string,
    severity: row['severity'] as Severity,
    systemId: row['system_id'] as number,
    customerId: row['customer_id'] as number,
    instance: row['instance'] as string,
    value: row['value'] as number | null,
    message: row['message'] as string,
    state: row['state'] as AlertState,
    acknowledged: row['acknowledged_at'] !== null,
    startedAt: (row['started_at'] as Date).toISOString(),
    resolvedAt: resolvedAt ? resolvedAt.toISOString() : null,
  };
}

/** The `Alert` part of an alert's detail (what the bus carries after an acknowledgement), in the contract's key order. */
export function alertOfDetail(detail: AlertDetail): Alert {
  return alert.parse(detail);
}

/** The bus event of topic `alert`; the live hub forwards `data` unchanged to accounts that may see it. */
export interface AlertEvent {
  type: AlertTransition;
  alert: Alert;
}

export const ALERT_TOPIC = 'alert';

/** Publishes one transition once. Called after the transaction that made it has committed. */
export async function publishAlertTransition(bus: Bus, type: AlertTransition, alert: Alert): Promise<void> {
  const event: AlertEvent = { type, alert };
  await bus.publish(ALERT_TOPIC, event);
}
