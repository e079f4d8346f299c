/**
 * The one shape of an alert outside the database: the REST answers, the bus
 * event of topic `alert` and the live channel's `msg` data (docs/protocol.md
 * "Live channel") all use it, so a console never sees two spellings.
 */
import type { Bus } from '../bus/bus.js';

export type Severity = 'INFO' | 'WARNING' | 'CRITICAL';
export type AlertState = 'open' | 'resolved';
/** `unacknowledged`: an acknowledgement's `until` passed; the alert counts as unacknowledged again. */
export type AlertTransition = 'raised' | 'resolved' | 'acknowledged' | 'unacknowledged';

export interface AlertJson {
  id: number;
  ruleKey: string;
  severity: Severity;
  systemId: number;
  customerId: number;
  instance: string;
  value: number | null;
  message: string;
  state: AlertState;
  acknowledged: boolean;
  startedAt: string;
  resolvedAt: string | null;
}

/** An `alerts` row as Knex returns it (snake_case columns). */
export interface AlertRow {
  id: number | string;
  rule_key: string;
  severity: string;
  system_id: number;
  customer_id: number;
  instance: string;
  value: number | null;
  message: string;
  state: string;
  acknowledged_at: Date | null;
  started_at: Date;
  resolved_at: Date | null;
}

export function toAlertJson(row: AlertRow): AlertJson {
  return {
    id: Number(row.id),
    ruleKey: row.rule_key,
    severity: row.severity as Severity,
    systemId: row.system_id,
    customerId: row.customer_id,
    instance: row.instance,
    value: row.value,
    message: row.message,
    state: row.state as AlertState,
    acknowledged: row.acknowledged_at !== null,
    startedAt: row.started_at.toISOString(),
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
  };
}

/** The bus event of topic `alert`; the live hub forwards `data` unchanged to accounts that may see it. */
export interface AlertEvent {
  type: AlertTransition;
  alert: AlertJson;
}

export const ALERT_TOPIC = 'alert';

/** Publishes one transition once. Called after the transaction that made it has committed. */
export async function publishAlertTransition(bus: Bus, type: AlertTransition, alert: AlertJson): Promise<void> {
  const event: AlertEvent = { type, alert };
  await bus.publish(ALERT_TOPIC, event);
}
