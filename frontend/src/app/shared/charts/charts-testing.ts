import { ForecastLine } from './forecast-projection';

/**
 * A disk forecast for specs: /var at 50 %, rising 1 % an hour from `through`, so it reaches 100 % 50
 * hours later (within the 72-hour horizon), unless told otherwise.
 */
export function forecastLineBody(through: number, overrides: Partial<ForecastLine> = {}): ForecastLine {
  return {
    metric: 'disk.used_pct',
    instance: '/var',
    through: new Date(through).toISOString(),
    level: 50,
    slopePerHour: 1,
    enoughData: true,
    ruleKey: 'disk.forecast',
    threshold: 100,
    direction: 1,
    horizonSeconds: 72 * 3600,
    projectedAt: new Date(through + 50 * 3_600_000).toISOString(),
    text: 'Disk used on /var reaches 100 % in 2 d 2 h, around Wed 14:00',
    ...overrides,
  };
}
