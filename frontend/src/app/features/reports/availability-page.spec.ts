import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { buttonByText, nextRequest, settle, renderForTests } from '@console/testing';
import { AvailabilityPage } from './availability-page';
import { recipientsOf } from './monthly-report-section';
import { AVAILABILITY_URL, AvailabilityReport, monthlyReportUrl, presetRange, todayIn } from './reports-api';

const HOUR = 3_600_000;
const customers = [
  { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'Europe/Berlin', createdAt: '' },
  { id: 20, name: 'Beta', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
];
const stats = (downMs: number, maintenanceMs = 0) => ({
  periodMs: 745 * HOUR,
  monitoredMs: 745 * HOUR - maintenanceMs,
  downMs,
  maintenanceMs,
  inactiveMs: 0,
  unknownMs: 0,
  availability: (100 * (745 * HOUR - maintenanceMs - downMs)) / (745 * HOUR - maintenanceMs),
});
const report: AvailabilityReport = {
  customer: { id: 10, name: 'Acme', timeZone: 'Europe/Berlin', active: true },
  fromDate: '2026-10-01',
  toDate: '2026-10-31',
  from: '2026-09-30T22:00:00.000Z',
  to: '2026-10-31T23:00:00.000Z',
  generatedAt: '2026-11-10T12:00:00.000Z',
  dataFrom: null,
  total: stats(3 * HOUR, 4 * HOUR),
  clusters: [{ id: 5, name: 'web', ...stats(3 * HOUR) }],
  systems: [
    {
      id: 1,
      name: 'web-1',
      kind: 'agent',
      clusterId: 5,
      ...stats(3 * HOUR),
      periods: [{ kind: 'down', from: '2026-10-24T23:00:00.000Z', to: '2026-10-25T02:00:00.000Z', alertIds: [7] }],
    },
    {
      id: 2,
      name: 'db-1',
      kind: 'agent',
      clusterId: null,
      ...stats(0, 4 * HOUR),
      periods: [{ kind: 'maintenance', from: '2026-10-04T00:00:00.000Z', to: '2026-10-04T04:00:00.000Z' }],
    },
    {
      id: 3,
      name: 'Shop front',
      kind: 'check',
      clusterId: null,
      ...stats(HOUR),
      periods: [{ kind: 'down', from: '2026-10-12T08:00:00.000Z', to: '2026-10-12T09:00:00.000Z', alertIds: [9] }],
    },
  ],
  downtimeRules: [
    { key: 'service.down', name: 'Service down' },
    { key: 'system.offline', name: 'System offline' },
  ],
};

describe('AvailabilityPage', () => {
  let fixture: ComponentFixture<AvailabilityPage>;
  let http: HttpTestingController;
  const page = (): HTMLElement => fixture.nativeElement;

  async function render(user: User, params: Record<string, string> = {}): Promise<void> {
    ({ fixture, http } = renderForTests(AvailabilityPage, user));
    for (const [name, value] of Object.entries(params)) fixture.componentRef.setInput(name, value);
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush(customers);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  it('shows the per-system table with timelines, the clusters, the total and the downloads', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }), {
      customer: '10',
      from: '2026-10-01',
      to: '2026-10-31',
    });
    const request = await nextRequest(http, (r) => r.url === AVAILABILITY_URL);
    expect(request.request.params.get('customer')).toBe('10');
    expect(request.request.params.get('from')).toBe('2026-10-01');
    expect(request.request.params.get('to')).toBe('2026-10-31');
    request.flush(report);
    await settle(fixture);

    const rows = Array.from(page().querySelectorAll('[data-testid="system-row"]'));
    expect(rows.map((r) => r.querySelector('th')?.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'web-1',
      'db-1',
      'Shop front (check)',
    ]);
    expect(rows[2].querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('Timeline: down 1 h in 1 period');
    expect(rows[0].textContent).toContain('web');
    expect(rows[0].querySelector('[data-testid="availability"]')?.textContent).toContain('99.597 %');
    expect(rows[0].querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('Timeline: down 3 h in 1 period');
    expect(rows[1].querySelector('[role="img"]')?.getAttribute('aria-label')).toBe(
      'Timeline: in maintenance 4 h in 1 period',
    );
    expect(page().querySelector('[data-testid="cluster-row"]')?.textContent).toContain('Cluster web');
    expect(page().querySelector('[data-testid="period"]')?.textContent).toContain(
      '2026-10-01 to 2026-10-31 (Europe/Berlin)',
    );
    expect(page().querySelector('[data-testid="counted"]')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'Counted as down: a system offline, or an open alert of Service down. Other alerts are not downtime.',
    );
    expect(page().querySelector('[data-testid="csv"]')?.getAttribute('href')).toBe(
      `${AVAILABILITY_URL}?customer=10&from=2026-10-01&to=2026-10-31&format=csv`,
    );
    expect(page().querySelector('[data-testid="pdf"]')?.getAttribute('href')).toContain('format=pdf');
    expect(page().querySelector('argus-monthly-report-section')).withContext('a viewer sets no e-mail').toBeNull();
  });

  it("starts with the first customer's month so far, in the customer's zone", async () => {
    await render(userBody({ role: 'ADMIN' }));
    const request = await nextRequest(http, (r) => r.url === AVAILABILITY_URL);
    const thisMonth = presetRange('this-month', todayIn('Europe/Berlin'));
    expect(request.request.params.get('customer')).toBe('10');
    expect(request.request.params.get('from')).toBe(thisMonth.from);
    expect(request.request.params.get('to')).toBe(thisMonth.to);
    request.flush({ ...report, systems: [] });
    (await nextRequest(http, { method: 'GET', url: monthlyReportUrl(10) })).flush({
      customerId: 10,
      enabled: false,
      recipients: [],
      deliveries: [],
    });
    await settle(fixture);
    expect(page().querySelector('[data-testid="empty"]')).not.toBeNull();
  });

  it('lets a writer switch the monthly e-mail on with a list of addresses', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), {
      customer: '10',
      from: '2026-10-01',
      to: '2026-10-31',
    });
    (await nextRequest(http, (r) => r.url === AVAILABILITY_URL)).flush(report);
    (await nextRequest(http, { method: 'GET', url: monthlyReportUrl(10) })).flush({
      customerId: 10,
      enabled: false,
      recipients: [],
      deliveries: [{ month: '2026-09', status: 'sent', attempts: 1, sentAt: '2026-09-30T22:00:05.000Z', error: null }],
    });
    await settle(fixture);
    expect(page().querySelector('[data-testid="deliveries"]')?.textContent).toContain('2026-09: sent');

    (page().querySelector('[data-testid="monthly-enabled"] input') as HTMLInputElement).click();
    const textarea = page().querySelector('[data-testid="monthly-recipients"]') as HTMLTextAreaElement;
    textarea.value = 'it@acme.example,\nboss@acme.example';
    textarea.dispatchEvent(new Event('input'));
    await settle(fixture);
    buttonByText('Save', page()).click();
    const put = await nextRequest(http, { method: 'PUT', url: monthlyReportUrl(10) });
    expect(put.request.body).toEqual({ enabled: true, recipients: ['it@acme.example', 'boss@acme.example'] });
    put.flush({ customerId: 10, enabled: true, recipients: ['it@acme.example', 'boss@acme.example'], deliveries: [] });
    await settle(fixture);
  });

  it('reads recipients separated by lines, commas, semicolons or spaces', () => {
    expect(recipientsOf(' a@x.example;b@x.example\n\nc@x.example d@x.example, ')).toEqual([
      'a@x.example',
      'b@x.example',
      'c@x.example',
      'd@x.example',
    ]);
  });

  it('gives last month whole, across the turn of the year', () => {
    expect(presetRange('last-month', '2027-01-15')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
    expect(presetRange('last-month', '2026-03-31')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(presetRange('this-month', '2026-03-31')).toEqual({ from: '2026-03-01', to: '2026-03-31' });
  });
});
