import { groupFamilies, rangeWindow, RANGES, sameFamilies, seriesLabel, sourceLabel, unitOf } from './series';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('chart series', () => {
  it('groups series into families by the part of the name before the first dot, in catalogue order', () => {
    const families = groupFamilies([
      { name: 'net.rx_bps', instance: 'eth0' },
      { name: 'disk.used_pct', instance: '/var' },
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'disk.used_pct', instance: '/' },
      { name: 'zfs.arc_hits', instance: '' },
      { name: 'cpu.iowait_pct', instance: '' },
      { name: 'disk.io_util_pct', instance: 'sda' },
      { name: 'load.15', instance: '' },
      { name: 'load.5', instance: '' },
      { name: 'load.1', instance: '' },
      { name: 'mem.used_pct', instance: '' },
      { name: 'custom', instance: '' },
    ]);

    expect(families.map((f) => [f.key, f.label])).toEqual([
      ['cpu', 'CPU'],
      ['load', 'Load'],
      ['mem', 'Memory'],
      ['disk', 'Disk'],
      ['net', 'Network'],
      ['custom', 'Custom'],
      ['zfs', 'Zfs'],
    ]);
    expect(families[1].series.map((s) => s.name)).toEqual(['load.1', 'load.5', 'load.15']);
    expect(families[3].series).toEqual([
      { name: 'disk.io_util_pct', instance: 'sda' },
      { name: 'disk.used_pct', instance: '/' },
      { name: 'disk.used_pct', instance: '/var' },
    ]);
  });

  it('tells equal groupings apart from changed ones', () => {
    const a = groupFamilies([{ name: 'cpu.usage_pct', instance: '' }]);
    const b = groupFamilies([{ name: 'cpu.usage_pct', instance: '' }]);
    const c = groupFamilies([
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'cpu.steal_pct', instance: '' },
    ]);

    expect(sameFamilies(a, b)).toBeTrue();
    expect(sameFamilies(a, c)).toBeFalse();
  });

  it('turns each range into a window ending now', () => {
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const spans = Object.fromEntries(RANGES.map((r) => [r.key, rangeWindow(r.key, now)]));

    expect(RANGES.map((r) => r.label)).toEqual(['1 h', '6 h', '24 h', '7 d', '30 d', '90 d', '400 d']);
    expect(spans['1h']).toEqual({ from: now - HOUR, to: now });
    expect(spans['6h'].from).toBe(now - 6 * HOUR);
    expect(spans['24h'].from).toBe(now - DAY);
    expect(spans['7d'].from).toBe(now - 7 * DAY);
    expect(spans['30d'].from).toBe(now - 30 * DAY);
    expect(spans['90d'].from).toBe(now - 90 * DAY);
    // The API's limit is 400 days: the longest range asks for exactly that.
    expect(spans['400d'].to - spans['400d'].from).toBe(400 * DAY);
  });

  it('labels a series by its metric within the family and its instance', () => {
    expect(seriesLabel({ name: 'disk.used_pct', instance: '/var' })).toBe('used_pct · /var');
    expect(seriesLabel({ name: 'cpu.usage_pct', instance: '' })).toBe('usage_pct');
    expect(seriesLabel({ name: 'custom', instance: 'a' })).toBe('custom · a');
  });

  it('reads units from the name suffix', () => {
    expect(unitOf('disk.used_pct')).toBe('%');
    expect(unitOf('net.rx_bps')).toBe('bps');
    expect(unitOf('net.errors_ps')).toBe('/s');
    expect(unitOf('time.offset_ms')).toBe('ms');
    expect(unitOf('load.5')).toBe('');
  });

  it('names the source of the points and their width', () => {
    expect(sourceLabel('raw', 4)).toBe('raw samples, 4 s per point');
    expect(sourceLabel('5m', 600)).toBe('5-minute rollups, 10 min per point');
    expect(sourceLabel('1h', 36_000)).toBe('hourly rollups, 10 h per point');
    expect(sourceLabel('raw', 87)).toBe('raw samples, 87 s per point');
    expect(sourceLabel('raw', 605)).toBe('raw samples, about 10 min per point');
  });
});
