/** The forecast settings' row of app_settings (key `forecasts`), or their defaults. */
import type { Knex } from 'knex';
import { FORECAST_DEFAULTS, type ForecastSettings } from '../../../../contracts/settings.js';
import { transactionOf } from '../../lib/transaction.js';

const KEY = 'forecasts';

export function createForecastSettingsRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    async find(q: Knex = db): Promise<ForecastSettings> {
      const row = (await q('app_settings').where({ key: KEY }).first('value')) as
        { value: Partial<ForecastSettings> } | undefined;
      return { ...FORECAST_DEFAULTS, ...row?.value };
    },
    async save(settings: ForecastSettings, q: Knex = db): Promise<void> {
      await q('app_settings')
        .insert({ key: KEY, value: JSON.stringify(settings), updated_at: q.fn.now() })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },
  };
}

export type ForecastSettingsRepo = ReturnType<typeof createForecastSettingsRepo>;
