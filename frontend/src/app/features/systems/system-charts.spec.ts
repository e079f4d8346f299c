import { HttpTestingController, TestRequest } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { provideForTests, settle } from '../../testing';
import { SystemCharts } from './system-charts';
import { systemUrl } from '../../shared/systems/systems-api';
import { MetricAnswer } from '../../shared/systems/series';

const HOUR = 3_600_000;

describe('SystemCharts', () => {
  let fixture: ComponentFixture<SystemCharts>;
  let http: HttpTestingController;

  const metricsUrl = `${systemUrl(7)}/metrics`;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    fixture = TestBed.createComponent(SystemCharts);
    fixture.componentRef.setInput('systemId', 7);
    await settle(fixture);
    http.expectOne(`${systemUrl(7)}/series`).flush([
      { name: 'cpu.usage_pct', instance: '' },
      { name: 'disk.used_pct', instance: '/var' },
      { name: 'net.rx_bps', instance: 'eth0' },
      { name: 'disk.used_pct', instance: '/' },
      { name: 'cpu.iowait_pct', instance: '' },
    ]);
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  /** The chart requests, once all `count` of them were sent (charts send theirs as they render). */
  async function metricRequests(count: number): Promise<TestRequest[]> {
    for (let turn = 0; turn < 50; turn++) {
      await settle(fixture);
      const found = http.match((req) => req.url === metricsUrl);
      if (found.length === count) return found;
      if (found.length > 0) throw new Error(`Expected ${count} metric requests, got ${found.length}`);
      await new Promise((resolve) => setTimeout(resolve));
    }
    throw new Error('No metric requests');
  }

  function answer(request: TestRequest, body: Partial<MetricAnswer> = {}): void {
    const to = Date.parse(request.request.params.get('to')!);
    request.flush({
      source: 'raw',
      bucketSeconds: 90,
      points: [
        [to - 2 * HOUR, 10, 5, 20],
        [to - HOUR, 12.5, 8, 30],
      ],
      ...body,
    });
  }

  const span = (request: TestRequest) =>
    Date.parse(request.request.params.get('to')!) - Date.parse(request.request.params.get('from')!);

  it('draws one chart per metric family, each series fetched on its own', async () => {
    const requests = await metricRequests(5);

    expect(Array.from(page().querySelectorAll('argus-family-chart h3'), (h) => h.textContent?.trim())).toEqual([
      'CPU',
      'Disk',
      'Network',
    ]);
    expect(requests.map((r) => [r.request.params.get('name'), r.request.params.get('instance')])).toEqual(
      jasmine.arrayWithExactContents([
        ['cpu.iowait_pct', ''],
        ['cpu.usage_pct', ''],
        ['disk.used_pct', '/'],
        ['disk.used_pct', '/var'],
        ['net.rx_bps', 'eth0'],
      ]),
    );
    requests.forEach((r) => answer(r));
    await settle(fixture);

    const disk = page().querySelectorAll('argus-family-chart')[1];
    expect(Array.from(disk.querySelectorAll('.metric-chart__label'), (l) => l.textContent?.trim())).toEqual([
      'used_pct · /',
      'used_pct · /var',
    ]);
    expect(disk.querySelector('.uplot')).not.toBeNull();
    expect(disk.querySelector('[data-testid="source"]')?.textContent?.trim()).toBe(
      'Source: raw samples, 90 s per point',
    );
  });

  it('asks for the last 24 hours at first, and for the chosen range after a pick', async () => {
    const first = await metricRequests(5);
    expect(first.map(span)).toEqual(Array(5).fill(24 * HOUR));
    first.forEach((r) => answer(r));
    await settle(fixture);

    const toggle = (label: string) =>
      Array.from(page().querySelectorAll<HTMLElement>('mat-button-toggle button')).find(
        (b) => b.textContent?.trim() === label,
      )!;
    toggle('6 h').click();
    const second = await metricRequests(5);
    expect(second.map(span)).toEqual(Array(5).fill(6 * HOUR));
    second.forEach((r) => answer(r));
    await settle(fixture);

    toggle('400 d').click();
    const third = await metricRequests(5);
    expect(third.map(span)).toEqual(Array(5).fill(400 * 24 * HOUR));
    third.forEach((r) => answer(r, { source: '1h', bucketSeconds: 36_000 }));
    await settle(fixture);

    expect(page().querySelector('[data-testid="source"]')?.textContent?.trim()).toBe(
      'Source: hourly rollups, 10 h per point',
    );
  });

  it("shows a family's error in its place, the other charts unharmed", async () => {
    const requests = await metricRequests(5);
    for (const request of requests) {
      if (request.request.params.get('name') === 'net.rx_bps') {
        request.flush({ error: 'from: at most 400 days back' }, { status: 400, statusText: 'Bad Request' });
      } else answer(request);
    }
    await settle(fixture);

    const charts = page().querySelectorAll('argus-family-chart');
    expect(charts[2].querySelector('[role="alert"]')?.textContent).toContain('at most 400 days back');
    expect(charts[0].querySelector('.uplot')).not.toBeNull();
  });
});
