import { ChartLine } from './chart-data';
import { forecastLineBody } from './charts-testing';
import { ForecastLine, projectionOf, projectionsFor } from './forecast-projection';

const HOUR = 3_600_000;
const THROUGH = Date.parse('2026-11-23T12:00:00Z');
const NOW = THROUGH + 20 * 60_000;

const forecast = (overrides: Partial<ForecastLine> = {}): ForecastLine => forecastLineBody(THROUGH, overrides);

const diskLine: ChartLine = {
  key: 'disk.used_pct|/var',
  label: 'Disk used · /var',
  metric: 'disk.used_pct',
  unit: '%',
  points: [],
};

describe('forecast projection', () => {
  it('runs the fitted line from the start of its window to the crossing', () => {
    const projection = projectionOf(forecast(), 24, NOW)!;
    expect(projection.line.points).toEqual([
      [THROUGH - 24 * HOUR, 26, 26, 26],
      [THROUGH + 50 * HOUR, 100, 100, 100],
    ]);
    expect(projection.end).toBe(THROUGH + 50 * HOUR);
    expect(projection.line.continues).toBe('disk.used_pct|/var');
    expect(projection.text).toContain('reaches 100 %');
  });

  it('stops at the horizon when the crossing lies beyond, and draws a flat line there without a text', () => {
    const far = projectionOf(forecast({ projectedAt: new Date(THROUGH + 200 * HOUR).toISOString() }), 24, NOW)!;
    expect(far.end).toBe(NOW + 72 * HOUR);
    const flat = projectionOf(forecast({ slopePerHour: 0, projectedAt: null, text: null }), 24, NOW)!;
    expect(flat.end).toBe(NOW + 72 * HOUR);
    expect(flat.line.points[1][1]).toBe(50);
    expect(flat.text).toBeNull();
  });

  it('draws nothing without enough data, for a series the chart does not show, or on a range under a day', () => {
    expect(projectionOf(forecast({ enoughData: false, projectedAt: null }), 24, NOW)).toBeNull();
    const answer = { evaluatedAt: new Date(NOW).toISOString(), windowHours: 24, lines: [forecast()] };
    const day = { from: NOW - 24 * HOUR, to: NOW };
    expect(projectionsFor([diskLine], answer, day).length).toBe(1);
    expect(projectionsFor([diskLine], answer, day)[0].line.unit).toBe('%');
    expect(projectionsFor([{ ...diskLine, key: 'disk.used_pct|/' }], answer, day)).toEqual([]);
    expect(projectionsFor([diskLine], answer, { from: NOW - 6 * HOUR, to: NOW })).toEqual([]);
    expect(projectionsFor([diskLine], null, day)).toEqual([]);
  });
});
