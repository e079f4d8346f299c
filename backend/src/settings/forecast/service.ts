/**
 * Forecast settings (docs/rules.md "Forecast rules"): the hours of the hourly rollup a trend is
 * fitted over, and the share of them that must hold data. Kept in app_settings under `forecasts`;
 * the evaluation reads them here (`get`, injected by the composition root): each run before its
 * transaction, the rule preview and the system page's projection at each request. A changed
 * window refits every line over the next runs.
 */
import type { ForecastSettings } from '../../../../contracts/settings.js';
import type { AuditActor, AuditTrail } from '../../lib/audit-trail.js';
import type { ForecastSettingsRepo } from './repo.js';

export function createForecastSettingsService({ repo, audit }: { repo: ForecastSettingsRepo; audit: AuditTrail }) {
  return {
    get: () => repo.find(),
    async update(actor: AuditActor, input: ForecastSettings): Promise<ForecastSettings> {
      await repo.transaction(async (trx) => {
        const before = await repo.find(trx);
        await repo.save(input, trx);
        await audit.record(trx, actor, {
          action: 'settings.forecasts.update',
          targetType: 'settings',
          targetId: 'forecasts',
          before,
          after: input,
        });
      });
      return repo.find();
    },
  };
}

export type ForecastSettingsService = ReturnType<typeof createForecastSettingsService>;
