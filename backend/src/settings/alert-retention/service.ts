/**
 * Alert retention (docs/rules.md "Alert retention"): resolved alerts older
 * than `retentionDays` are deleted by the hourly housekeeping; 0 keeps them;
 * open alerts are never deleted. Default 90 days.
 */
import type { AuditActor, AuditTrail } from '../../lib/audit-trail.js';
import type { Clock } from '../../lib/clock.js';
import type { AlertRetentionRepo } from './repo.js';

export const DEFAULT_RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;

export interface AlertRetentionSettings {
  retentionDays: number;
}

export function createAlertRetentionService({
  repo,
  clock,
  audit,
}: {
  repo: AlertRetentionRepo;
  clock: Clock;
  audit: AuditTrail;
}) {
  async function get(): Promise<AlertRetentionSettings> {
    return { retentionDays: (await repo.findDays()) ?? DEFAULT_RETENTION_DAYS };
  }
  return {
    get,
    async update(actor: AuditActor, input: AlertRetentionSettings): Promise<AlertRetentionSettings> {
      await repo.transaction(async (trx) => {
        const before = (await repo.findDays(trx)) ?? DEFAULT_RETENTION_DAYS;
        await repo.saveDays(input.retentionDays, trx);
        await audit.record(trx, actor, {
          action: 'settings.alert_retention.update',
          targetType: 'settings',
          targetId: 'alert_retention',
          before: { retentionDays: before },
          after: { retentionDays: input.retentionDays },
        });
      });
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
