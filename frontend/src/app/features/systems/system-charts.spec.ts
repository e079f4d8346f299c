import { HttpTestingController, TestRequest } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { renderForTests, settle } from '@console/testing';
import { SystemCharts } from './system-charts';
import { systemUrl } from '@console/shared/systems/systems-api';
import { ChartAnswer } from '@console/shared/systems/series';

const HOUR = 3_600_000;

describe('SystemCharts', () => {
  let fixture: ComponentFixture<SystemCharts>;
  let http: HttpTestingController;

  const batchUrl = `${systemUrl(7)}/metrics/batch`;
  const SERIES = [
    { name: 'cpu.usage_pct', instance: '' },
    { name: 'disk.used_pct', instance: '/var' },
    { name: 'net.rx_bps', instance: 'eth0' },
    { name: 'net.drops_ps', instance: 'eth0' },
    { name: 'disk.smart_ok', instance: 'sda' },
    { name: 'disk.used_pct', instance: '/' },
    { name: 'cpu.iowait_pct', instance: '' },
    { name: 'temp.max_c', instance: 'cpu' },
    { name: 'backup.age_h', instance: 'nightly' },
  ];

  beforeEach(async () => {
    ({ fixture, http } = renderForTests(SystemCharts));
    fixture.componentRef.setInput('systemId', 7);
    await settle(fixture);
    http.expectOne(`${systemUrl(7)}/series`).flush(SERIES);
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  /** The one chart request pending, once sent. */
  async function batchRequest(): Promise<TestRequest> {
    for (let turn = 0; turn < 50; turn++) {
      await settle(fixture);
      const found = http.match((req) => req.url === batchUrl);
      if (found.length > 1) throw new Error(`Expected one chart request, got ${found.length}`);
      if (found.length === 1) return found[0];
      await new Promise((resolve) => setTimeout(resolve));
    }
    throw new Error('No chart request');
  }

  const asked = (request: TestRequest) => request.request.params.getAll('series') ?? [];

  /** Points for every series asked but temperature and backups; `body` overrides. */
  function answer(request: TestRequest, body: Partial<ChartAnswer> = {}): void {
    const to = Date.parse(request.request.params.get('to')!);
    request.flush({
      source: 'raw',
      bucketSeconds: 90,
      series: asked(request).map((param) => {
        const [name, instance = ''] = param.split('|');
        const empty = name === 'temp.max_c' || name === 'backup.age_h';
        const value = name === 'disk.smart_ok' ? 1 : name === 'net.rx_bps' ? 12_400_000 : 12.5;
        return {
          name,
          instance,
          points: empty
            ? []
            : [
                [to - 2 * HOUR, value, value, value],
                [to - HOUR, value, value, value],
              ],
        };
      }),
      ...body,
    });
  }

  /** Opening the page: the first screen's charts in one request, then the rest in another; both answered. */
  async function answerOpening(): Promise<void> {
    answer(await batchRequest());
    await settle(fixture);
    answer(await batchRequest());
    await settle(fixture);
  }

  const span = (request: TestRequest) =>
    Date.parse(request.request.params.get('to')!) - Date.parse(request.request.params.get('from')!);
  const titles = () => Array.from(page().querySelectorAll('argus-family-chart h3'), (h) => h.textContent?.trim());
  const legend = (chart: string) =>
    Array.from(
      page().querySelectorAll(`argus-family-chart[data-chart="${chart}"] .metric-chart__item`),
      (item) =>
        `${item.querySelector('.metric-chart__label')?.textContent?.trim()} ${item.querySelector('.metric-chart__value')?.textContent?.trim()}`,
    );

  it("opens with the first screen's charts, then loads the rest in one request; groups by kind and unit, flags as a strip", async () => {
    const first = await batchRequest();
    // the status strip and the first four charts, by the catalogue's order
    expect(asked(first)).toEqual(
      jasmine.arrayWithExactContents([
        'disk.smart_ok|sda',
        'cpu.usage_pct',
        'cpu.iowait_pct',
        'disk.used_pct|/',
        'disk.used_pct|/var',
        'net.rx_bps|eth0',
        'net.drops_ps|eth0',
      ]),
    );
    answer(first);
    await settle(fixture);
    // drawn before the rest arrive, and no chart named as without data before it was asked for
    expect(titles()).toEqual(['Status', 'CPU', 'Disk space', 'Network traffic', 'Network errors and drops']);
    expect(page().querySelector('[data-testid="no-data"]')).toBeNull();
    expect(page().querySelector('mat-progress-bar[aria-label="Loading the charts"]')).not.toBeNull();

    const rest = await batchRequest();
    expect(span(rest)).toBe(span(first));
    expect(asked(rest)).toEqual(
      jasmine.arrayWithExactContents([...asked(first), 'temp.max_c|cpu', 'backup.age_h|nightly']),
    );
    answer(rest);
    await settle(fixture);

    expect(titles()).toEqual(['Status', 'CPU', 'Disk space', 'Network traffic', 'Network errors and drops']);
    expect(legend('CPU')).toEqual(['CPU used 12.5 %', 'CPU I/O wait 12.5 %']);
    expect(legend('Disk space')).toEqual(['Disk used · / 12.5 %', 'Disk used · /var 12.5 %']);
    expect(legend('Network traffic')).toEqual(['Received · eth0 12 Mbit/s']);
    expect(legend('Network errors and drops')).toEqual(['Dropped packets · eth0 12.5 /s']);

    const strip = page().querySelector('argus-family-chart[data-chart="Status"]')!;
    expect(strip.querySelector('.uplot')).toBeNull();
    const row = strip.querySelector('[data-testid="status-row"]')!;
    expect(row.querySelector('.name')?.textContent?.trim()).toBe('SMART health · sda');
    expect(row.querySelector('.now')?.textContent?.trim()).toBe('passes its SMART health check');
    expect(strip.querySelector('svg')?.getAttribute('aria-label')).toBe(
      'SMART health · sda: passes its SMART health check now; no problem in this range',
    );
    expect(page().querySelector('[data-testid="no-data"]')?.textContent?.trim()).toBe(
      'No data for Temperature, Backup age in the last 24 h.',
    );
    expect(page().querySelector('[data-testid="source"]')?.textContent?.trim()).toBe(
      'Source: raw samples, 90 s per point',
    );
  });

  it('asks for the last 24 hours at first, and for the chosen range in one request after a pick', async () => {
    const first = await batchRequest();
    expect(span(first)).toBe(24 * HOUR);
    answer(first);
    await settle(fixture);
    answer(await batchRequest());
    await settle(fixture);

    const toggle = (label: string) =>
      Array.from(page().querySelectorAll<HTMLElement>('mat-button-toggle button')).find(
        (b) => b.textContent?.trim() === label,
      )!;
    toggle('6 h').click();
    const second = await batchRequest();
    expect(span(second)).toBe(6 * HOUR);
    // the charts of the last range stay while the next one loads
    expect(titles().length).toBe(5);
    answer(second);
    await settle(fixture);

    toggle('400 d').click();
    const third = await batchRequest();
    expect(span(third)).toBe(400 * 24 * HOUR);
    answer(third, { source: '1h', bucketSeconds: 36_000 });
    await settle(fixture);

    expect(page().querySelector('[data-testid="source"]')?.textContent?.trim()).toBe(
      'Source: hourly rollups, 10 h per point',
    );
    expect(page().querySelector('[data-testid="no-data"]')?.textContent).toContain('in the last 400 d');
  });

  it('shows an error of the chart request above the charts it could not refresh', async () => {
    await answerOpening();
    Array.from(page().querySelectorAll<HTMLElement>('mat-button-toggle button'))
      .find((b) => b.textContent?.trim() === '7 d')!
      .click();
    (await batchRequest()).flush({ error: 'from: at most 400 days back' }, { status: 400, statusText: 'Bad Request' });
    await settle(fixture);

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('at most 400 days back');
    expect(titles().length).toBe(5);
  });
});
