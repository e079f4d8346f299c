/**
 * Hourly in-app housekeeping (not evaluation: it needs no scheduler). Removes
 * expired sessions, trusted devices, e-mailed codes and reset links, and
 * resolved alerts past the alert retention (spec: "checked once an hour"), and
 * agent events older than the raw metrics retention (they are history of the same age).
 * A failed step is logged and retried next hour; one step failing never skips the other.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { HousekeepingRepo } from './repo.js';

export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

/** The alert retention's own service (settings/alert-retention-service.ts) deletes what it no longer keeps. */
export interface AlertRetentionPurge {
  purge(): Promise<number>;
}

export function createHousekeeping({
  repo,
  clock,
  log,
  alertRetention,
  agentEventRetentionMs,
}: {
  repo: HousekeepingRepo;
  clock: Clock;
  log: Logger;
  alertRetention?: AlertRetentionPurge;
  /** Agent events are kept as long as raw samples (METRICS_RAW_RETENTION); absent: kept. */
  agentEventRetentionMs?: number;
}) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function runOnce(): Promise<void> {
    try {
      const deleted = await repo.deleteExpiredSignInRows(clock.now());
      if (Object.values(deleted).some((n) => n > 0)) log.info(deleted, 'Removed expired sign-in rows');
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Housekeeping failed; retrying next hour');
    }
    if (agentEventRetentionMs !== undefined) {
      try {
        const events = await repo.deleteAgentEventsBefore(new Date(clock.now().getTime() - agentEventRetentionMs));
        if (events > 0) log.info({ events }, 'Removed agent events past the raw retention');
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Agent event retention failed; retrying next hour');
      }
    }
    if (!alertRetention) return;
    try {
      const alerts = await alertRetention.purge();
      if (alerts > 0) log.info({ alerts }, 'Removed resolved alerts past the alert retention');
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Alert retention failed; retrying next hour');
    }
  }

  return {
    runOnce,
    start(): void {
      timer ??= setInterval(() => {
        running ??= runOnce().finally(() => (running = null));
      }, HOUSEKEEPING_INTERVAL_MS);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}

export type Housekeeping = ReturnType<typeof createHousekeeping>;
