import { axisValue, flagState, formatMetricValue, metricInfo, seriesLabel } from '@contracts/metric-catalogue';

import { stripSegments } from './chart-status-strip';

const HOUR = 3_600_000;

describe('the metric catalogue on a system page', () => {
  it('labels every series in words, with its instance', () => {
    expect(seriesLabel('load.1', '')).toBe('Load, 1 min');
    expect(seriesLabel('load.per_core_5', '')).toBe('Load per core, 5 min');
    expect(seriesLabel('disk.smart_ok', 'sda')).toBe('SMART health · sda');
    expect(seriesLabel('net.drops_ps', 'eth0')).toBe('Dropped packets · eth0');
    expect(seriesLabel('uptime.s', '')).toBe('Uptime');
    expect(seriesLabel('zfs.arc_hits', 'pool')).toBe('zfs.arc_hits · pool');
  });

  it('puts one kind and unit in a chart: flags in the status strip, rates apart from bit rates', () => {
    expect(metricInfo('disk.readonly').chart).toBe('Status');
    expect(metricInfo('disk.used_pct').chart).toBe('Disk space');
    expect(metricInfo('net.rx_bps').chart).toBe('Network traffic');
    expect(metricInfo('net.drops_ps').chart).toBe('Network errors and drops');
    const byChart = new Map<string, Set<string>>();
    for (const name of ['cpu.usage_pct', 'load.1', 'mem.used_pct', 'disk.used_pct', 'disk.io_util_pct', 'net.rx_bps']) {
      const info = metricInfo(name);
      byChart.set(info.chart, new Set([...(byChart.get(info.chart) ?? []), `${info.kind} ${info.unit}`]));
    }
    expect([...byChart.values()].every((kinds) => kinds.size === 1)).toBeTrue();
  });

  it('formats values as a person reads them: durations, bit rates, percentages', () => {
    expect(formatMetricValue('uptime.s', 18 * 86_400 + 4 * 3600 + 12 * 60)).toBe('18 d 4 h');
    expect(formatMetricValue('net.tx_bps', 12_400_000)).toBe('12 Mbit/s');
    expect(formatMetricValue('net.tx_bps', 2_500)).toBe('2.5 kbit/s');
    expect(formatMetricValue('disk.used_pct', 93.54)).toBe('93.5 %');
    expect(formatMetricValue('temp.max_c', 58.29)).toBe('58.29 °C');
    expect(axisValue('net.rx_bps', 4_000_000)).toBe('4 Mbit/s');
    expect(axisValue('uptime.s', 21 * 86_400)).toBe('21 d');
    expect(axisValue('cert.days_left', 70)).toBe('70 days');
  });

  it("reads a flag's value in words and knows which value is the problem", () => {
    expect(flagState('disk.smart_ok', 1)).toEqual({ text: 'passes its SMART health check', problem: false });
    expect(flagState('disk.smart_ok', 0)).toEqual({ text: 'fails its SMART health check', problem: true });
    expect(flagState('disk.readonly', 1)).toEqual({ text: 'is read-only', problem: true });
    expect(flagState('net.up', 1)).toEqual({ text: 'is up', problem: false });
    expect(flagState('disk.used_pct', 1)).toBeNull();
  });

  it('draws a flag as stretches of one state over the window, gaps left empty', () => {
    const from = 0;
    const to = 10 * HOUR;
    const minute = 60_000;
    const points: [number, number, number, number][] = [];
    for (let t = 0; t < 4 * HOUR; t += 10 * minute) points.push([t, 1, 1, 1]); // read-only: the problem
    points.push([4 * HOUR, 0.5, 0, 1]); // writable again within this bucket
    for (let t = 6 * HOUR; t < 10 * HOUR; t += 10 * minute) points.push([t, 0, 0, 0]); // writable, after a 2 h gap
    const segments = stripSegments({ name: 'disk.readonly', instance: '/', points }, from, to, 10 * minute);

    expect(segments.map((s) => s.state)).toEqual(['problem', 'mixed', 'ok']);
    expect(segments[0].x).toBe(0);
    expect(Math.round(segments[0].width)).toBe(400);
    expect(Math.round(segments[2].x)).toBe(600);
    expect(Math.round(segments[2].x + segments[2].width)).toBe(1000);
  });
});
