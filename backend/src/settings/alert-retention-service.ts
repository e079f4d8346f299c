/**
 * Alert retention (spec "Settings edited at runtime"): resolved alerts older
 * than `retentionDays` are deleted by the hourly housekeeping; 0 keeps them;
 * open alerts are never deleted. Default 90 days.
 */
import type { Clock } from '../lib/clock.js';
import type { AlertRetentionRepo } from './alert-retention-repo.js';

export const DEFAULT_RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;

export interface AlertRetentionSettings {
  retentionDays: number;
}

export function createAlertRetentionService({ repo, clock }: { repo: AlertRetentionRepo; clock: Clock }) {
  async function get(): Promise<AlertRetentionSettings> {
    return { retentionDays: (await repo.findDays()) ?? DEFAULT_RETENTION_DAYS };
  }
  return {
    get,
    async update(input: AlertRetentionSettings): Promise<AlertRetentionSettings> {
      await repo.saveDays(input.retentionDays);
      return get();
    },
    /** Deletes what the setting no longer keeps; returns how many alerts went. */
    async purge(): Promise<number> {
      const { retentionDays } = await get();
      if (retentionDays === 0) return 0;
      return repo.deleteResolvedBefore(new Date(clock.now().getTime() - retentionDays * DAY_MS));
    },
  };
}

export type AlertRetentionService = ReturnType<typeof createAlertRetentionService>;
