import { groupCharts, rangeWindow, RANGES, sameCharts, sourceLabel } from './series';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('chart series', () => {
  it('groups series into charts of one kind and unit as the catalogue says, the status strip first', () => {
    const charts = groupCharts([
      { name: 'net.rx_bps', instance: 'eth0' },
      { name: 'net.drops_ps', instance: 'eth0' },
      { name: 'disk.used_pct', instance: '/var' },
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'disk.used_pct', instance: '/' },
      { name: 'disk.readonly', instance: '/' },
      { name: 'disk.smart_ok', instance: 'sda' },
      { name: 'zfs.arc_hits', instance: '' },
      { name: 'cpu.iowait_pct', instance: '' },
      { name: 'disk.io_util_pct', instance: 'sda' },
      { name: 'load.15', instance: '' },
      { name: 'load.5', instance: '' },
      { name: 'load.1', instance: '' },
      { name: 'mem.used_pct', instance: '' },
      { name: 'services.failed', instance: '' },
      { name: 'proc.zombies', instance: '' },
      { name: 'uptime.s', instance: '' },
    ]);

    expect(charts.map((c) => c.key)).toEqual([
      'Status',
      'CPU',
      'Load',
      'Memory and swap',
      'Disk space',
      'Disk activity',
      'Network traffic',
      'Network errors and drops',
      'Counts',
      'Uptime',
      'zfs.arc_hits',
    ]);
    expect(charts[0].status).toBeTrue();
    expect(charts.slice(1).every((c) => !c.status)).toBeTrue();
    expect(charts[0].series).toEqual([
      { name: 'disk.readonly', instance: '/' },
      { name: 'disk.smart_ok', instance: 'sda' },
    ]);
    expect(charts[2].series.map((s) => s.name)).toEqual(['load.1', 'load.5', 'load.15']);
    expect(charts[4].series).toEqual([
      { name: 'disk.used_pct', instance: '/' },
      { name: 'disk.used_pct', instance: '/var' },
    ]);
    expect(charts[8].series.map((s) => s.name)).toEqual(['services.failed', 'proc.zombies']);
  });

  it('tells equal groupings apart from changed ones', () => {
    const a = groupCharts([{ name: 'cpu.usage_pct', instance: '' }]);
    const b = groupCharts([{ name: 'cpu.usage_pct', instance: '' }]);
    const c = groupCharts([
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'cpu.steal_pct', instance: '' },
    ]);

    expect(sameCharts(a, b)).toBeTrue();
    expect(sameCharts(a, c)).toBeFalse();
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

  it('names the source of the points and their width', () => {
    expect(sourceLabel('raw', 4)).toBe('raw samples, 4 s per point');
    expect(sourceLabel('5m', 600)).toBe('5-minute rollups, 10 min per point');
    expect(sourceLabel('1h', 36_000)).toBe('hourly rollups, 10 h per point');
    expect(sourceLabel('raw', 87)).toBe('raw samples, 87 s per point');
    expect(sourceLabel('raw', 605)).toBe('raw samples, about 10 min per point');
  });
});
