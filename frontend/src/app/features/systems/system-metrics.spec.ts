import { HttpTestingController, TestRequest } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { renderForTests, settle } from '@console/testing';
import { systemUrl } from '@console/shared/systems/systems-api';
import { SeriesKey } from '@console/shared/systems/series';
import { forecastLineBody } from '@console/shared/charts/charts-testing';
import type { SystemForecasts } from '@contracts/rules';
import { SystemMetrics } from './system-metrics';

describe('SystemMetrics', () => {
  let fixture: ComponentFixture<SystemMetrics>;
  let http: HttpTestingController;

  const batchUrl = `${systemUrl(7)}/metrics/batch`;
  const HOST: SeriesKey[] = [{ name: 'cpu.usage_pct', instance: '' }];
  const containerSeries = (instance: string) =>
    ['running', 'healthy', 'restarts', 'cpu_pct', 'mem_pct', 'net_rx_bps'].map((m) => ({
      name: `container.${m}`,
      instance,
    }));
  /** The images the agent listed: cache runs from a long reference, db's image is not known. */
  const IMAGES = [
    { name: 'cache', image: 'registry.example:5000/platform/redis-cache:7.4.1', reportedAt: '2026-11-28T10:00:00Z' },
    { name: 'web', image: 'nginx:1.27', reportedAt: '2026-11-28T10:00:00Z' },
  ];
  /** The newest value of each container series: web is unhealthy, db exited, cache runs without a healthcheck. */
  const VALUES: Record<string, number> = {
    'container.running|web': 1,
    'container.healthy|web': 0,
    'container.restarts|web': 4,
    'container.cpu_pct|web': 93,
    'container.mem_pct|web': 40,
    'container.running|db': 0,
    'container.restarts|db': 0,
    'container.cpu_pct|db': 0,
    'container.mem_pct|db': 0,
    'container.running|cache': 1,
    'container.restarts|cache': 1,
    'container.cpu_pct|cache': 12,
    'container.mem_pct|cache': 85,
    'process.cpu_pct|node (app)': 150,
    'process.rss_bytes|node (app)': 800 * 1024 * 1024,
    'process.cpu_pct|postgres (postgres)': 20,
    'process.rss_bytes|postgres (postgres)': 2.5 * 1024 ** 3,
    // in the top list an hour ago, not at the last report
    'process.cpu_pct|cron (root)': 99,
    'process.rss_bytes|cron (root)': 1024,
    'processes.count|nginx': 0,
  };

  async function render(series: SeriesKey[], inputs: Record<string, string> = {}): Promise<void> {
    ({ fixture, http } = renderForTests(SystemMetrics));
    fixture.componentRef.setInput('systemId', 7);
    for (const [key, value] of Object.entries(inputs)) fixture.componentRef.setInput(key, value);
    await settle(fixture);
    http.expectOne(`${systemUrl(7)}/series`).flush(series);
    await answerCharts();
  }

  /** The system's forecast lines the host's charts ask for (none unless a test sets them). */
  let forecasts: SystemForecasts = { evaluatedAt: new Date().toISOString(), windowHours: 24, lines: [] };

  /** Answers every chart request pending (several turns: the first screen's charts come before the rest). */
  async function answerCharts(): Promise<TestRequest[]> {
    const answered: TestRequest[] = [];
    for (let turn = 0; turn < 20; turn++) {
      await settle(fixture);
      http.match((req) => req.url === `${systemUrl(7)}/forecasts`).forEach((req) => req.flush(forecasts));
      http.match((req) => req.url === `${systemUrl(7)}/container-images`).forEach((req) => req.flush(IMAGES));
      const found = http.match((req) => req.url === batchUrl);
      found.forEach(answer);
      answered.push(...found);
      await new Promise((resolve) => setTimeout(resolve));
    }
    await settle(fixture);
    return answered;
  }

  function answer(request: TestRequest): void {
    const to = Date.parse(request.request.params.get('to')!);
    request.flush({
      source: 'raw',
      bucketSeconds: 4,
      series: request.request.params.getAll('series')!.map((param) => {
        const [name, instance = ''] = param.split('|');
        const value = VALUES[param] ?? 5;
        const at = instance === 'cron (root)' ? to - 3_000_000 : to - 10_000;
        return {
          name,
          instance,
          points: VALUES[param] === undefined && name.startsWith('container.') ? [] : [[at, value, value, value]],
        };
      }),
    });
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const tabs = () => Array.from(page().querySelectorAll('[role="tab"]'), (t) => t.textContent?.trim());
  async function openTab(label: string): Promise<TestRequest[]> {
    const tab = Array.from(page().querySelectorAll<HTMLElement>('[role="tab"]')).find(
      (t) => t.textContent?.trim() === label,
    );
    tab!.click();
    return answerCharts();
  }
  const cells = (row: Element) =>
    Array.from(row.querySelectorAll('th, td'), (c) => c.textContent?.replace(/\s+/g, ' ').trim());

  it("draws a disk's forecast as a dashed trend in its chart and says when it fills", async () => {
    const through = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    forecasts = {
      evaluatedAt: new Date().toISOString(),
      windowHours: 24,
      lines: [forecastLineBody(through.getTime())],
    };
    await render([...HOST, { name: 'disk.used_pct', instance: '/var' }]);

    const disk = page().querySelector('[data-chart="Disk space"]');
    expect(disk?.querySelector('[data-testid="forecast"]')?.textContent).toContain(
      'Trend: Disk used on /var reaches 100 % in 2 d 2 h',
    );
    const legend = Array.from(disk!.querySelectorAll('.metric-chart__label'), (l) => l.textContent?.trim());
    expect(legend).toEqual(['Disk used · /var', 'Disk used · /var · trend']);
    expect(page().querySelector('[data-chart="CPU"] [data-testid="forecast"]')).toBeNull();
    forecasts = { ...forecasts, lines: [] };
  });

  it('shows no tabs for a host without containers or processes', async () => {
    await render(HOST);

    expect(page().querySelector('[role="tablist"]')).toBeNull();
    expect(page().querySelector('argus-system-charts')).not.toBeNull();
  });

  it('offers only the tabs whose series the system has', async () => {
    await render([...HOST, ...containerSeries('web')]);

    expect(tabs()).toEqual(['Host', 'Containers']);
    expect(page().querySelector('[role="tab"][aria-selected="true"]')?.textContent?.trim()).toBe('Host');
  });

  it('lists each container with its image, state, health, restarts, CPU and memory', async () => {
    await render([...HOST, ...containerSeries('web'), ...containerSeries('db'), ...containerSeries('cache')]);
    const requests = await openTab('Containers');

    // the table's values in one request, not one per container
    const table = requests.filter((r) => r.request.params.getAll('series')!.includes('container.running|web'));
    expect(table.length).toBe(1);
    const headers = Array.from(page().querySelectorAll('table thead th[scope="col"]'), (h) => h.textContent?.trim());
    expect(headers).toEqual(['Container', 'State', 'Health', 'Restarts', 'CPU', 'Memory']);
    const rows = Array.from(page().querySelectorAll('table tbody tr'), cells);
    expect(rows).toEqual([
      ['cache registry.example:5000/platform/redis-cache:7.4.1', 'Running', 'No check', '1', '12 %', '85 %'],
      ['db', 'Exited', 'No check', '0', '0 %', '0 %'],
      ['web nginx:1.27', 'Unhealthy', 'Unhealthy', '4', '93 %', '40 %'],
    ]);
    expect(page().querySelector('tr[data-container="web"] .image')?.textContent?.trim()).toBe('nginx:1.27');
    expect(page().querySelectorAll('table argus-usage-bar').length).toBe(6);
  });

  it("opens a container's own charts, at every range, on a click", async () => {
    await render([...HOST, ...containerSeries('web'), ...containerSeries('db')]);
    await openTab('Containers');
    expect(page().querySelector('[data-testid="container-charts"]')).toBeNull();

    page().querySelector<HTMLButtonElement>('button[aria-label="Charts of web"]')!.click();
    const requests = await answerCharts();

    const charts = page().querySelector('[data-testid="container-charts"]')!;
    expect(charts.querySelector('h2')?.textContent?.trim()).toBe('web');
    const asked = requests.flatMap((r) => r.request.params.getAll('series')!);
    expect(asked).toContain('container.net_rx_bps|web');
    expect(asked.every((s) => s.endsWith('|web'))).toBeTrue();
    expect(charts.querySelectorAll('mat-button-toggle').length).toBe(7);
  });

  it('opens the Containers tab and a container from a link', async () => {
    await render([...HOST, ...containerSeries('web')], { tab: 'containers', container: 'web' });

    expect(page().querySelector('[role="tab"][aria-selected="true"]')?.textContent?.trim()).toBe('Containers');
    expect(page().querySelector('[data-testid="container-charts"] h2')?.textContent?.trim()).toBe('web');
  });

  it('shows the top lists of the last report and the watched patterns', async () => {
    const top = ['node (app)', 'postgres (postgres)', 'cron (root)'].flatMap((instance) => [
      { name: 'process.cpu_pct', instance },
      { name: 'process.rss_bytes', instance },
    ]);
    await render([...HOST, ...top, { name: 'processes.count', instance: 'nginx' }]);
    expect(tabs()).toEqual(['Host', 'Processes']);
    await openTab('Processes');

    const list = (key: string) =>
      Array.from(page().querySelectorAll(`[data-list="${key}"] tbody tr`), (row) => cells(row));
    expect(list('cpu')).toEqual([
      ['node (app)', '150 %', '800 MiB'],
      ['postgres (postgres)', '20 %', '2.5 GiB'],
    ]);
    expect(list('memory')).toEqual([
      ['postgres (postgres)', '20 %', '2.5 GiB'],
      ['node (app)', '150 %', '800 MiB'],
    ]);
    expect(page().querySelector('[data-testid="watched-charts"] h2')?.textContent?.trim()).toBe('Watched processes');
  });

  it('lists the script checks with state, message and last run, and the charts of the one in trouble', async () => {
    const checkSeries: SeriesKey[] = [
      { name: 'script.state', instance: 'backup' },
      { name: 'script.state', instance: 'disk' },
      { name: 'script.perf', instance: 'disk:used' },
      { name: 'script.perf', instance: 'disk:free' },
      { name: 'script.perf', instance: 'diskette:used' },
    ];
    await render([...HOST, ...checkSeries]);
    expect(tabs()).toEqual(['Host', 'Checks']);
    await openTab('Checks');
    // three and a half minutes before now: the page's clock ticked last when it opened
    const ranAt = new Date(Date.now() - 210_000).toISOString();
    http.expectOne(`${systemUrl(7)}/script-checks`).flush([
      { name: 'backup', state: 'CRITICAL', message: 'CRITICAL - last backup 30 h ago', ranAt, reportedAt: ranAt },
      { name: 'disk', state: 'OK', message: 'OK - 42% used', ranAt, reportedAt: ranAt },
    ]);
    let requests = await answerCharts();

    const headers = Array.from(page().querySelectorAll('table thead th[scope="col"]'), (h) => h.textContent?.trim());
    expect(headers).toEqual(['Check', 'State', 'Message', 'Last run']);
    expect(Array.from(page().querySelectorAll('table tbody tr'), cells)).toEqual([
      ['backup', 'CRITICAL', 'CRITICAL - last backup 30 h ago', '3 min ago'],
      ['disk', 'OK', 'OK - 42% used', '3 min ago'],
    ]);
    // the check in trouble first: its state's chart
    expect(page().querySelector('[data-testid="check-charts"] h2')?.textContent?.trim()).toBe('backup');
    expect(requests.flatMap((r) => r.request.params.getAll('series')!)).toEqual(['script.state|backup']);

    page().querySelector<HTMLButtonElement>('button[aria-label="Charts of disk"]')!.click();
    requests = await answerCharts();
    expect(page().querySelector('[data-testid="check-charts"] h2')?.textContent?.trim()).toBe('disk');
    const asked = requests.flatMap((r) => r.request.params.getAll('series')!).sort();
    expect(asked).toEqual(['script.perf|disk:free', 'script.perf|disk:used', 'script.state|disk']);
    // only the picked check's series
    expect(asked.some((s) => s.startsWith('cpu.'))).toBeFalse();
  }, 30_000);
});
