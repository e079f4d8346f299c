import { HttpTestingController } from '@angular/common/http/testing';

import { nextRequest, renderForTests, settle } from '@console/testing';
import { formatBytes, scheduleText, STORAGE_URL, StorageReport } from './storage-api';
import { StoragePage } from './storage-page';

const ERROR = 'cannot drop portal "" while it is being set up';

function reportBody(overrides: Partial<StorageReport> = {}): StorageReport {
  return {
    timescale: true,
    databaseBytes: 3 * 1024 ** 3,
    metricsBytes: 1.5 * 1024 ** 3,
    chunks: 9,
    compressedChunks: 7,
    compression: { beforeBytes: 2 * 1024 ** 3, afterBytes: 100 * 1024 ** 2 },
    jobs: [
      {
        id: 1000,
        name: 'Columnstore Policy [1000]',
        relation: 'metrics',
        scheduleSeconds: 43_200,
        state: 'failing',
        lastRunStatus: 'Failed',
        lastSuccessAt: null,
        nextStartAt: new Date(Date.now() + 3_600_000).toISOString(),
        lastError: ERROR,
      },
      {
        id: 1001,
        name: 'Refresh Continuous Aggregate Policy [1001]',
        relation: 'metrics_5m',
        scheduleSeconds: 300,
        state: 'ok',
        lastRunStatus: 'Success',
        lastSuccessAt: new Date(Date.now() - 60_000).toISOString(),
        nextStartAt: new Date(Date.now() + 240_000).toISOString(),
        lastError: null,
      },
      {
        id: 1002,
        name: 'Retention Policy [1002]',
        relation: 'metrics',
        scheduleSeconds: 86_400,
        state: 'never',
        lastRunStatus: null,
        lastSuccessAt: null,
        nextStartAt: new Date(Date.now() + 3_600_000).toISOString(),
        lastError: null,
      },
    ],
    ...overrides,
  };
}

describe('StoragePage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function render(body: StorageReport): Promise<HTMLElement> {
    const { fixture, http: backend } = renderForTests(StoragePage);
    http = backend;
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: STORAGE_URL })).flush(body);
    await settle(fixture);
    return fixture.nativeElement;
  }

  it('shows the sizes, the compression and each job with its state and last error', async () => {
    const page = await render(reportBody());
    const usage = page.querySelector('[data-testid="usage"]')?.textContent ?? '';
    expect(usage).toContain('3.0 GB');
    expect(usage).toContain('1.5 GB');
    expect(usage).toContain('7 of 9');
    expect(usage).toContain('20.5× smaller');
    const jobs = [...page.querySelectorAll('[data-testid="job"]')].map((row) => row.textContent ?? '');
    expect(jobs.length).toBe(3);
    expect(jobs[0]).toContain('Failing');
    expect(jobs[0]).toContain(ERROR);
    expect(jobs[0]).toContain('every 12 h');
    expect(jobs[0]).toContain('Never');
    expect(jobs[1]).toContain('OK');
    expect(jobs[1]).toContain('every 5 min');
    const neverRun = page.querySelectorAll('[data-testid="job-state"]')[2];
    expect(neverRun?.textContent?.trim()).toBe('Never run');
    expect(neverRun?.classList).not.toContain('chip--ok');
  });

  it('says what is missing without TimescaleDB', async () => {
    const page = await render(
      reportBody({ timescale: false, chunks: 0, compressedChunks: 0, compression: null, jobs: [] }),
    );
    expect(page.querySelector('[data-testid="no-timescale"]')?.textContent).toContain('TimescaleDB is not installed');
    expect(page.querySelectorAll('[data-testid="job"]').length).toBe(0);
  });

  it('formats sizes and schedules for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(25 * 1024 ** 2)).toBe('25 MB');
    expect(scheduleText(86_400)).toBe('every day');
    expect(scheduleText(3 * 86_400)).toBe('every 3 days');
    expect(scheduleText(3_600)).toBe('every 1 h');
  });
});
