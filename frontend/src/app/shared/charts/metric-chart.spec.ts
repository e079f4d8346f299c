import { Component, signal } from '@angular/core';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { provideForTests, settle } from '@console/testing';
import { alignLines, ChartLine, lineValue, withAlpha } from './chart-data';
import { chartOptions, ChartTheme } from './chart-options';
import { MetricChart } from './metric-chart';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const MINUTE = 60_000;

function line(key: string, values: number[], metric = 'disk.used_pct', unit = '%'): ChartLine {
  return {
    key,
    label: key,
    metric,
    unit,
    points: values.map((v, i) => [T0 + i * MINUTE, v, v - 1, v + 1]),
  };
}

describe('chart data', () => {
  it('aligns lines on one x column, with gaps where a line has no bucket', () => {
    const a: ChartLine = {
      key: 'a',
      label: 'a',
      metric: 'load.1',
      unit: '',
      points: [
        [T0, 1, 0, 2],
        [T0 + MINUTE, 2, 1, 3],
      ],
    };
    const b: ChartLine = {
      key: 'b',
      label: 'b',
      metric: 'load.1',
      unit: '',
      points: [
        [T0 + MINUTE, 5, 4, 6],
        [T0 + 2 * MINUTE, 6, 5, 7],
      ],
    };

    expect(alignLines([a, b])).toEqual([
      [T0, T0 + MINUTE, T0 + 2 * MINUTE],
      [1, 2, null],
      [0, 1, null],
      [2, 3, null],
      [null, 5, 6],
      [null, 4, 5],
      [null, 6, 7],
    ]);
  });

  it("formats values as the metric catalogue says for the line's metric", () => {
    expect(lineValue({ metric: 'disk.used_pct' }, 12.5)).toBe('12.5 %');
    expect(lineValue({ metric: 'net.rx_bps' }, 1_234_567)).toBe('1.2 Mbit/s');
    expect(lineValue({ metric: 'uptime.s' }, 18 * 86_400 + 4 * 3600 + 59)).toBe('18 d 4 h');
    expect(lineValue({ metric: 'load.1' }, 3)).toBe('3');
    expect(lineValue({ metric: 'disk.used_pct' }, null)).toBe('—');
  });

  it('formats the axis ticks short, by the kind of the metric', () => {
    const theme: ChartTheme = { lines: ['rgb(1, 2, 3)'], axis: 'black', grid: 'grey' };
    const ticks = (metric: string, unit: string, values: number[]) => {
      const options = chartOptions([line('x', [1], metric, unit)], theme, { width: 500, height: 200 }, () => [0, 1]);
      const format = options.axes?.[1].values as (u: unknown, splits: number[]) => string[];
      return format(null, values);
    };
    expect(ticks('disk.used_pct', '%', [0, 50, 100])).toEqual(['0 %', '50 %', '100 %']);
    expect(ticks('net.rx_bps', 'bit/s', [0, 5_000_000, 12_000_000_000])).toEqual(['0 bit/s', '5 Mbit/s', '12 Gbit/s']);
    expect(ticks('uptime.s', 's', [0, 86_400 * 18 + 3600 * 4, 86_400 * 18 + 3600 * 5])).toEqual([
      '0 s',
      '18 d 4 h',
      '18 d 5 h',
    ]);
    expect(ticks('net.drops_ps', '/s', [0.5, 1500])).toEqual(['0.5 /s', '1.5K /s']);
  });

  it('makes the band colour translucent', () => {
    expect(withAlpha('rgb(21, 101, 192)', 0.2)).toBe('rgba(21, 101, 192, 0.2)');
  });

  it('bands every line between its min and max, and gives each unit its own scale', () => {
    const theme: ChartTheme = { lines: ['rgb(1, 2, 3)', 'rgb(4, 5, 6)'], axis: 'black', grid: 'grey' };
    const options = chartOptions(
      [line('used', [1]), line('rx', [1], 'net.rx_bps', 'bit/s'), line('tx', [1], 'net.tx_bps', 'bit/s')],
      theme,
      { width: 500, height: 200 },
      () => [0, 1],
    );

    expect(options.series.length).toBe(1 + 3 * 3);
    expect(options.bands?.map((b) => b.series)).toEqual([
      [3, 2],
      [6, 5],
      [9, 8],
    ]);
    expect(options.series.slice(1).map((s) => s.scale)).toEqual(['y0', 'y0', 'y0', 'y1', 'y1', 'y1', 'y1', 'y1', 'y1']);
    // Only the averages are drawn as lines; the third line takes the first colour again.
    expect(options.series.slice(1).map((s) => s.width)).toEqual([1.5, 0, 0, 1.5, 0, 0, 1.5, 0, 0]);
    expect(options.series[7].stroke).toBe('rgb(1, 2, 3)');
    expect(options.bands?.[0].fill).toBe('rgba(1, 2, 3, 0.18)');
    expect(options.axes?.map((a) => a.side ?? 2)).toEqual([2, 3, 1]);
  });
});

@Component({
  imports: [MetricChart],
  template: `<div [style.width.px]="width()">
    <argus-metric-chart [lines]="lines()" [from]="from" [to]="to" label="Disk over the last 1 h" />
  </div>`,
})
class Host {
  readonly width = signal(600);
  readonly lines = signal<ChartLine[]>([line('/', [40, 42, 45.5]), line('/var', [70, 71, 72])]);
  readonly from = T0;
  readonly to = T0 + 3 * MINUTE;
}

describe('MetricChart', () => {
  let fixture: ComponentFixture<Host>;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    fixture = TestBed.createComponent(Host);
    await settle(fixture);
  });

  const page = (): HTMLElement => fixture.nativeElement;
  const legend = () =>
    Array.from(page().querySelectorAll('.metric-chart__item'), (item) => [
      item.querySelector('.metric-chart__label')?.textContent?.trim(),
      item.querySelector('.metric-chart__value')?.textContent?.trim(),
    ]);
  const plotWidth = () => (page().querySelector('.u-wrap') as HTMLElement | null)?.style.width;

  async function until(condition: () => boolean): Promise<void> {
    for (let turn = 0; turn < 50 && !condition(); turn++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await settle(fixture);
    }
  }

  it('draws with uPlot and names each line with its newest value in the legend', () => {
    expect(page().querySelectorAll('.uplot canvas').length).toBeGreaterThan(0);
    expect(page().querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('Disk over the last 1 h');
    expect(legend()).toEqual([
      ['/', '45.5 %'],
      ['/var', '72 %'],
    ]);
  });

  it('switches a line off and on from the legend', async () => {
    const item = page().querySelector<HTMLButtonElement>('.metric-chart__item')!;

    item.click();
    await settle(fixture);
    expect(item.getAttribute('aria-pressed')).toBe('false');
    expect(item.classList).toContain('metric-chart__item--off');

    item.click();
    await settle(fixture);
    expect(item.getAttribute('aria-pressed')).toBe('true');
  });

  it('keeps the chart when only the data changes, and rebuilds it for other lines', async () => {
    const chart = page().querySelector('.uplot');

    fixture.componentInstance.lines.set([line('/', [40, 42, 50]), line('/var', [70, 71, 73])]);
    await settle(fixture);
    expect(page().querySelector('.uplot')).toBe(chart);
    expect(legend()).toEqual([
      ['/', '50 %'],
      ['/var', '73 %'],
    ]);

    fixture.componentInstance.lines.set([line('/', [1]), line('/var', [2]), line('/home', [3])]);
    await settle(fixture);
    expect(page().querySelectorAll('.uplot').length).toBe(1);
    expect(page().querySelector('.uplot')).not.toBe(chart);
    expect(legend().length).toBe(3);
  });

  it('follows the width of its container', async () => {
    await until(() => plotWidth() === '600px');
    expect(plotWidth()).toBe('600px');

    fixture.componentInstance.width.set(420);
    await settle(fixture);
    await until(() => plotWidth() === '420px');

    expect(plotWidth()).toBe('420px');
  });
});
