/**
 * Hourly in-app housekeeping (not evaluation: it needs no scheduler). Removes
 * expired sessions, trusted devices, e-mailed codes and reset links; the alert
 * retention check joins it later. A failed run is logged and retried next hour.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { HousekeepingRepo } from './repo.js';

export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

export function createHousekeeping({ repo, clock, log }: { repo: HousekeepingRepo; clock: Clock; log: Logger }) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function runOnce(): Promise<void> {
    try {
      const deleted = await repo.deleteExpiredSignInRows(clock.now());
      if (Object.values(deleted).some((n) => n > 0)) log.info(deleted, 'Removed expired sign-in rows');
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Housekeeping failed; retrying next hour');
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
