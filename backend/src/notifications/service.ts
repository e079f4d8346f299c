/**
 * Sends the alert e-mails the evaluation run queued (contracts.md
 * "Notifications"): after the run's transaction committed and outside its lock,
 * one pass at a time in this process, through the mailer's short (10 s) SMTP
 * timeouts. A failed send is logged and retried by the passes of later runs, at
 * most 3 retries (4 attempts); it never fails a run. Nothing is sent for a
 * system that is suppressed at send time, and nothing older than an hour (a late
 * "raised" is no news).
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../mail/mailer.js';
import { alertMail } from './alert-mail.js';
import type { Knex } from 'knex';
import { queueNotifications, type NotificationsRepo, type QueuedTransition } from './repo.js';

export const MAX_ATTEMPTS = 4;
const STALE_MS = 60 * 60_000;
const KEEP_MS = 7 * 86_400_000;
const PER_PASS = 200;
/** A server that failed this many sends in a row is down: the rest waits for the next run. */
const GIVE_UP_AFTER = 3;

export interface SystemRef {
  id: number;
  customerId: number;
  clusterId: number | null;
}

export interface DeliveryResult {
  sent: number;
  failed: number;
  dropped: number;
}

export interface AlertNotifierDeps {
  repo: NotificationsRepo;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  authUrl: string;
}

export function createAlertNotifier({ repo, mailer, clock, log, authUrl }: AlertNotifierDeps) {
  let chain: Promise<unknown> = Promise.resolve();

  async function pass(suppressed: (system: SystemRef) => boolean): Promise<DeliveryResult> {
    const result: DeliveryResult = { sent: 0, failed: 0, dropped: 0 };
    const now = clock.now();
    result.dropped += await repo.dropStale(new Date(now.getTime() - STALE_MS));
    await repo.dropForDisabledAccounts();
    await repo.dropForLostRights();
    await repo.prune(new Date(now.getTime() - KEEP_MS));
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

  return {
    /** Queues the e-mails of some transitions inside the caller's transaction; returns how many. */
    queue(trx: Knex.Transaction, transitions: readonly QueuedTransition[], now: Date): Promise<number> {
      return queueNotifications(trx, transitions, now);
    },
    /** Starts a pass after the previous one; never rejects. */
    deliver(suppressed: (system: SystemRef) => boolean): Promise<DeliveryResult> {
      const next = chain.then(
        () => pass(suppressed),
        () => pass(suppressed),
      );
      chain = next.catch((error: unknown) => {
        log.error({ err: error }, 'Sending alert e-mails failed');
      });
      return next.catch(() => ({ sent: 0, failed: 0, dropped: 0 }));
    },
    /** Resolves once every pass started so far has finished (shutdown, tests). */
    async settled(): Promise<void> {
      await chain;
    },
  };
}

export type AlertNotifier = ReturnType<typeof createAlertNotifier>;
