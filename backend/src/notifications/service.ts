/**
 * Queues and sends what an alert's events notify : routing picks the channels of the
 * customer's policy (routing-repo.ts); the channel "accounts who may see it" becomes the account
 * e-mails below, every other channel a row of the channel outbox (channel-sender.ts).
 *
 * The account e-mails (docs/rules.md "Notifications"): after the run's transaction committed and outside its lock,
 * one pass at a time in this process, through the mailer's short (10 s) SMTP
 * timeouts. A failed send is logged and retried by the passes of later runs, at
 * most 3 retries (4 attempts); it never fails a run. Nothing is sent for a
 * system that is suppressed at send time, and nothing older than an hour (a late
 * "raised" is no news).
 */
import type { Knex } from 'knex';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Mailer } from '../mail/mailer.js';
import { alertMail } from './alert-mail.js';
import { createChannelSender } from './channel-sender.js';
import type { DeliveryResult, SystemRef } from './types.js';
import type { DeliveriesRepo } from './deliveries-repo.js';
import { queueNotifications, type NotificationsRepo, type QueuedTransition } from './repo.js';
import { eventKey, type RoutingRepo } from './routing-repo.js';

export const MAX_ATTEMPTS = 4;
const STALE_MS = 60 * 60_000;
const PER_PASS = 200;
/** A server that failed this many sends in a row is down: the rest waits for the next run. */
const GIVE_UP_AFTER = 3;

export interface AlertNotifierDeps {
  repo: NotificationsRepo;
  deliveries: DeliveriesRepo;
  /** Which channels an event goes to, the channel outbox, the reminders due. */
  routing: RoutingRepo;
  /** Opens the channels' sealed targets and secrets. */
  box: SecretBox;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  authUrl: string;
  allowPrivateWebhooks?: boolean;
  /** Tests shorten a channel send's 10 s. */
  channelTimeoutMs?: number;
}

export function createAlertNotifier(deps: AlertNotifierDeps) {
  const { repo, routing, mailer, clock, log, authUrl } = deps;
  const channels = createChannelSender({
    repo: deps.deliveries,
    box: deps.box,
    mailer,
    clock,
    log,
    authUrl,
    allowPrivateWebhooks: deps.allowPrivateWebhooks ?? false,
    ...(deps.channelTimeoutMs ? { timeoutMs: deps.channelTimeoutMs } : {}),
  });
  let chain: Promise<unknown> = Promise.resolve();

  async function mailPass(suppressed: (system: SystemRef) => boolean): Promise<DeliveryResult> {
    const result: DeliveryResult = { sent: 0, failed: 0, dropped: 0 };
    const now = clock.now();
    result.dropped += await repo.dropStale(new Date(now.getTime() - STALE_MS));
    await repo.dropForDisabledAccounts();
    await repo.dropForLostRights();
    let failuresInRow = 0;
    for (const due of await repo.due(PER_PASS)) {
      if (suppressed({ id: due.systemId, customerId: due.customerId, clusterId: due.clusterId })) {
        await repo.markDropped(due.id, 'suppressed');
        result.dropped += 1;
        continue;
      }
      try {
        await mailer.send(alertMail(due, authUrl));
        await repo.markSent(due.id, clock.now());
        result.sent += 1;
        failuresInRow = 0;
      } catch (error) {
        const message = (error as Error).message;
        await repo.markFailed(due.id, message, clock.now(), MAX_ATTEMPTS);
        result.failed += 1;
        failuresInRow += 1;
        log.warn(
          { notification: due.id, alert: due.alertId, attempt: due.attempts + 1, of: MAX_ATTEMPTS },
          `Alert e-mail not sent: ${message}`,
        );
        if (failuresInRow >= GIVE_UP_AFTER) break;
      }
    }
    return result;
  }

  async function pass(suppressed: (system: SystemRef) => boolean, mailOn: boolean): Promise<DeliveryResult> {
    const sent = await channels.pass(suppressed);
    if (!mailOn) return sent;
    const mailed = await mailPass(suppressed);
    return {
      sent: sent.sent + mailed.sent,
      failed: sent.failed + mailed.failed,
      dropped: sent.dropped + mailed.dropped,
    };
  }

  async function queue(
    trx: Knex.Transaction,
    transitions: readonly QueuedTransition[],
    now: Date,
    mailOn: boolean,
  ): Promise<number> {
    const routed = await routing.routedChannels(
      transitions.map((t) => ({ alertId: t.alertId, event: t.kind, adminsOnly: t.adminsOnly ?? false })),
      trx,
    );
    const keyOf = (t: QueuedTransition) =>
      eventKey({ alertId: t.alertId, event: t.kind, adminsOnly: t.adminsOnly ?? false });
    const toAccounts = new Set(routed.filter((r) => r.accounts).map(eventKey));
    const mails = mailOn
      ? await queueNotifications(
          trx,
          transitions.filter((t) => toAccounts.has(keyOf(t))),
          now,
        )
      : 0;
    const incidentOf = new Map(transitions.flatMap((t) => (t.incidentId ? [[keyOf(t), t.incidentId] as const] : [])));
    return mails + (await routing.queueChannelDeliveries(routed, now, incidentOf, trx));
  }

  /** Starts a pass after the previous one: the channel outbox, then (mail on) the account e-mails; never rejects. */
  function deliver(suppressed: (system: SystemRef) => boolean, mailOn = true): Promise<DeliveryResult> {
    const next = chain.then(
      () => pass(suppressed, mailOn),
      () => pass(suppressed, mailOn),
    );
    chain = next.catch((error: unknown) => {
      log.error({ err: error }, 'Sending notifications failed');
    });
    return next.catch(() => ({ sent: 0, failed: 0, dropped: 0 }));
  }

  return {
    /**
     * Queues what some events notify, inside the caller's transaction: a row per routed channel, and
     * the account e-mails where the accounts channel is routed and mail is on. Returns how many.
     */
    queue,
    /**
     * The `acknowledged` notifications of acknowledgements (alerts/service.ts AckNotifications),
     * sent at once under the suppression `suppression()` reads.
     */
    acknowledgements(suppression: () => Promise<(system: SystemRef) => boolean>) {
      return {
        prepare: async () => {
          // read before the transaction: the embedded database has a single connection
          const mailOn = await mailer.isEnabled().catch(() => false);
          return {
            queue: async (trx: Knex.Transaction, alertId: number) => {
              const alert = await routing.alertRef(alertId, trx);
              if (alert) await queue(trx, [{ alertId, kind: 'acknowledged', ...alert }], clock.now(), mailOn);
            },
            send: () => {
              void suppression().then(
                (suppressed) => deliver(suppressed, mailOn),
                (error: unknown) => log.error({ err: error }, 'Sending acknowledgement notifications failed'),
              );
            },
          };
        },
      };
    },
    /**
     * Inside the evaluation run: clears acknowledgements past their `until` (returned, to publish)
     * and finds the repeats and escalations due, except for systems `quiet` (suppressed) now, which
     * get theirs once the suppression ends. The caller queues the reminders with the run's events.
     * `customerId`: only that customer's alerts (null: all).
     */
    async reminders(
      trx: Knex.Transaction,
      now: Date,
      quiet: (systemId: number) => boolean,
      customerId: number | null = null,
    ) {
      const expired = await routing.expireAcknowledgements(now, customerId, trx);
      const due = (await routing.dueReminders(now, customerId, trx)).filter((r) => !quiet(r.systemId));
      await routing.markReminded(due, now, trx);
      const reminders: QueuedTransition[] = due.map((r) => ({
        alertId: r.alertId,
        kind: r.event,
        customerId: r.customerId,
        severity: r.severity,
      }));
      return { expired, reminders };
    },
    deliver,
    /** Resolves once every pass started so far has finished (shutdown, tests). */
    async settled(): Promise<void> {
      await chain;
    },
  };
}

export type AlertNotifier = ReturnType<typeof createAlertNotifier>;
