/**
 * The delivery log of one alert: every channel and e-mail it was sent to, with every attempt, to
 * whoever may see the alert; another account's address only to administrators.
 */
import type { AlertsService } from '../alerts/service.js';
import type { Principal } from '../lib/access.js';
import type { DeliveriesRepo, LogEntry } from './deliveries-repo.js';

function entryView(entry: LogEntry, showRecipient: boolean) {
  return {
    id: entry.id,
    channel: { id: entry.channelId, name: entry.channelName, type: entry.channelType },
    event: entry.event,
    status: entry.status,
    attempts: entry.attempts,
    lastStatus: entry.lastStatus,
    lastError: entry.lastError,
    // another account's address is not everyone's business
    recipient: showRecipient ? entry.recipient : null,
    createdAt: entry.createdAt.toISOString(),
    lastAttemptAt: entry.lastAttemptAt?.toISOString() ?? null,
    sentAt: entry.sentAt?.toISOString() ?? null,
    // every try: when, the target's status (channels) and why it failed
    attemptLog: entry.attemptLog,
  };
}

export function createDeliveryLog({ alerts, deliveries }: { alerts: AlertsService; deliveries: DeliveriesRepo }) {
  return {
    async of(principal: Principal, alertId: number) {
      // the alert's own visibility rule: a 404 for an alert the account may not see
      const alert = await alerts.get(principal, alertId);
      return (await deliveries.log(alert.id)).map((entry) => entryView(entry, principal.role === 'ADMIN'));
    },
  };
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>;
