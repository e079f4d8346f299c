import { HttpTestingController, TestRequest } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { AuthService, User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, provideForTests, settle, typeInto, renderForTests } from '@console/testing';
import { CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { AlertsPage, SYSTEM_OPTIONS } from './alerts-page';
import { SYSTEMS_PAGE_URL } from '@console/shared/systems/systems-api';
import { pageBody, systemBody } from '@console/shared/systems/systems-testing';
import { alertBody } from '@console/shared/alerts/alerts-testing';
import { shortTime } from '@console/ui/time-ago';
import { Incident, INCIDENTS_URL } from './incidents-api';
import { incidentAlertBody, incidentBody } from './incidents-testing';

describe('AlertsPage', () => {
  let fixture: ComponentFixture<AlertsPage>;
  let http: HttpTestingController;

  const alertsRequest = (state = 'open') =>
    nextRequest(http, (r) => r.method === 'GET' && r.url === ALERTS_URL && r.params.get('state') === state);

  const incidentsRequest = () => nextRequest(http, (r) => r.method === 'GET' && r.url === INCIDENTS_URL);

  /** The page for `user` with these open incidents; answers the alerts request itself. */
  async function render(user: User, incidents: Incident[] = []): Promise<TestRequest> {
    ({ fixture, http } = renderForTests(AlertsPage, user));
    await settle(fixture);
    http
      .expectOne(CUSTOMERS_URL)
      .flush([{ id: 10, name: 'Acme', active: true, notes: '', timeZone: 'UTC', createdAt: '' }]);
    http.expectNone(SYSTEMS_PAGE_URL); // the System filter asks once it is used
    const incidentsAsked = await incidentsRequest();
    expect(incidentsAsked.request.params.get('state')).toBe('open');
    expect(incidentsAsked.request.params.has('customer')).toBeFalse();
    incidentsAsked.flush(incidents);
    return alertsRequest();
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const rows = () => Array.from(page().querySelectorAll<HTMLElement>('[data-testid="alert"]'));

  it('lists open alerts newest first, linking each to its system and to itself', async () => {
    const request = await render(userBody({ role: 'VIEWER', customerIds: [10] }));
    expect(request.request.params.get('limit')).toBe('100');
    request.flush([
      alertBody({ id: 2, severity: 'CRITICAL', ruleKey: 'disk.critical', instance: '/var' }),
      alertBody(),
    ]);
    await settle(fixture);

    expect(rows().length).toBe(2);
    expect(rows()[0].textContent).toContain('disk.critical · /var');
    expect(rows()[0].querySelector('[data-testid="severity"]')?.textContent).toContain('Critical');
    expect(rows()[0].querySelector('[data-testid="system-link"]')?.getAttribute('href')).toBe('/systems/5');
    expect(rows()[0].querySelector('a')?.getAttribute('href')).toBe('/alerts/2');
    expect(page().querySelectorAll('[data-testid="alert"] button').length)
      .withContext('a viewer never acknowledges')
      .toBe(0);
  });

  it('switches to resolved alerts and filters by severity', async () => {
    (await render(userBody())).flush([]);
    await settle(fixture);
    expect(page().querySelector('[data-testid="empty"]')?.textContent).toContain('No open alerts');

    buttonByText('Resolved', page()).click();
    await settle(fixture);
    (await alertsRequest('resolved')).flush([alertBody({ state: 'resolved', resolvedAt: new Date().toISOString() })]);
    await settle(fixture);
    expect(rows()[0].textContent).toContain('resolved just now');

    (page().querySelector('[data-testid="severity-filter"] .mat-mdc-select-trigger') as HTMLElement).click();
    await settle(fixture);
    (
      Array.from(document.querySelectorAll('mat-option')).find(
        (o) => o.textContent?.trim() === 'Critical',
      ) as HTMLElement
    ).click();
    await settle(fixture);
    const filtered = await alertsRequest('resolved');
    expect(filtered.request.params.get('severity')).toBe('CRITICAL');
    filtered.flush([]);
  });

  it('shows resolved alerts by when they resolved, newest first, with how long each lasted', async () => {
    (await render(userBody())).flush([]);
    await settle(fixture);
    buttonByText('Resolved', page()).click();
    await settle(fixture);
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    // ids in the order raised: #3 was raised last but resolved first
    (await alertsRequest('resolved')).flush([
      alertBody({ id: 3, state: 'resolved', startedAt: ago(50), resolvedAt: ago(40) }),
      alertBody({ id: 2, state: 'resolved', startedAt: ago(200), resolvedAt: ago(5) }),
      alertBody({ id: 1, state: 'resolved', startedAt: ago(90), resolvedAt: ago(30) }),
    ]);
    await settle(fixture);
    const links = rows().map((row) => row.querySelector('a')?.getAttribute('href'));
    expect(links).toEqual(['/alerts/2', '/alerts/1', '/alerts/3']);
    expect(rows().map((row) => row.querySelector('[data-testid="duration"]')?.textContent?.trim())).toEqual([
      'lasted 3 h 15 min',
      'lasted 1 h',
      'lasted 10 min',
    ]);
  });

  it("writes an alert's times in the customer's zone, and wraps a long instance name", async () => {
    // 12 min 15 s ago with odd milliseconds, as a stored time has: "12 min ago" whatever the clock's second
    const lastSeen = new Date(Date.now() - 12 * 60_000 - 15_000);
    lastSeen.setUTCMilliseconds(479);
    const longMount = '/srv/' + 'very-long-directory-name-'.repeat(6) + 'data';
    (await render(userBody())).flush([
      alertBody({
        id: 4,
        ruleKey: 'system.offline',
        customerTimeZone: 'Asia/Kolkata',
        message: `No report since ${lastSeen.toISOString()}`,
      }),
      alertBody({
        id: 5,
        ruleKey: 'disk.readonly',
        instance: longMount,
        message: `Filesystem ${longMount} is read-only`,
      }),
    ]);
    await settle(fixture);
    const text = rows()[0].querySelector('[data-testid="alert-text"]')?.textContent?.trim();
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Kolkata', hour: '2-digit', minute: '2-digit' });
    expect(text).toMatch(new RegExp(`^No report since (\\d+ \\w+, )?${local.format(lastSeen)} \\(12 min ago\\)$`));
    expect(text).not.toContain('Z');
    const head = rows()[1].querySelector('.head') as HTMLElement;
    expect(getComputedStyle(head).overflowWrap).toBe('anywhere');
  });

  it('offers the systems matching what is typed in the System filter (asked of the server), and filters by the one picked', async () => {
    (await render(userBody())).flush([]);
    await settle(fixture);
    const field = page().querySelector<HTMLInputElement>('[data-testid="system-filter"]')!;
    field.dispatchEvent(new Event('focus'));
    field.value = 'db';
    field.dispatchEvent(new Event('input'));
    field.dispatchEvent(new Event('focusin')); // opens the autocomplete's panel
    await settle(fixture);
    await new Promise((resolve) => setTimeout(resolve, 250)); // typing pauses
    const asked = await nextRequest(http, (r) => r.url === SYSTEMS_PAGE_URL);
    expect(asked.request.params.get('q')).toBe('db');
    expect(asked.request.params.get('limit')).toBe(String(SYSTEM_OPTIONS));
    expect(asked.request.params.get('sort')).toBe('name');
    asked.flush(pageBody([systemBody({ id: 8, name: 'db-01' }), systemBody({ id: 9, name: 'db-02' })]));
    await settle(fixture);
    const options = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    expect(options.map((o) => o.textContent?.trim())).toEqual(['All systems', 'db-01', 'db-02']);

    options[2].click();
    await settle(fixture);
    const filtered = await alertsRequest();
    expect(filtered.request.params.get('system')).toBe('9');
    filtered.flush([]);
    expect(field.value).toBe('db-02');
  });

  it('lets an operator of the customer acknowledge with a note, then shows who did', async () => {
    (await render(userBody({ role: 'OPERATOR', customerIds: [10] }))).flush([alertBody({ id: 7 })]);
    await settle(fixture);

    buttonByText('Acknowledge', rows()[0]).click();
    await settle(fixture);
    typeInto(document.querySelector('mat-dialog-container textarea'), 'On it');
    buttonByText('Acknowledge', document.querySelector('mat-dialog-container')!).click();
    const ack = await nextRequest(http, { method: 'POST', url: `${ALERTS_URL}/7/ack` });
    expect(ack.request.body).toEqual({ note: 'On it' });
    const acknowledged = alertBody({
      id: 7,
      acknowledged: true,
      acknowledgedAt: new Date().toISOString(),
      acknowledgedBy: { id: 3, name: 'Grace' },
      ackNote: 'On it',
    });
    ack.flush(acknowledged);
    (await alertsRequest()).flush([acknowledged]);
    await settle(fixture);

    expect(rows()[0].querySelector('[data-testid="ack-info"]')?.textContent).toContain('acknowledged by Grace');
    expect(rows()[0].querySelector('[data-testid="ack-note"]')?.textContent).toContain('On it');
    expect(Array.from(rows()[0].querySelectorAll('button')).length).toBe(0);
  });

  it('marks a flapping alert, and only that one', async () => {
    (await render(userBody({ role: 'VIEWER', customerIds: [10] }))).flush([
      alertBody({ id: 1, flapping: true }),
      alertBody({ id: 2 }),
    ]);
    await settle(fixture);

    expect(rows()[0].querySelector('[data-testid="flapping"]')?.textContent?.trim()).toBe('flapping');
    expect(rows()[1].querySelector('[data-testid="flapping"]')).toBeNull();
  });

  it('says until when an acknowledgement with an expiry holds', async () => {
    const until = '2026-11-26T09:30:00.000Z';
    (await render(userBody({ role: 'VIEWER', customerIds: [10] }))).flush([
      alertBody({
        acknowledged: true,
        acknowledgedAt: new Date().toISOString(),
        acknowledgedBy: { id: 3, name: 'Grace' },
        ackUntil: until,
      }),
    ]);
    await settle(fixture);

    expect(rows()[0].querySelector('[data-testid="ack-until"]')?.textContent).toContain(
      `until ${shortTime(until, 'UTC')}`,
    );
  });

  it('lists the open incidents above the alerts with their systems, each linking to its alert', async () => {
    const resolved = incidentBody({ id: 4, title: 'Site down: Paris', state: 'resolved' });
    const incident = incidentBody({
      alerts: [
        incidentAlertBody({ id: 11, systemId: 5, systemName: 'web-01' }),
        incidentAlertBody({ id: 12, systemId: 6, systemName: 'web-02', state: 'resolved' }),
        incidentAlertBody({ id: 13, systemId: 7, systemName: 'web-03' }),
      ],
    });
    (await render(userBody({ role: 'VIEWER', customerIds: [10] }), [incident, resolved])).flush([alertBody()]);
    await settle(fixture);

    const section = page().querySelector('[data-testid="incidents"]') as HTMLElement;
    expect(section.querySelector('h2')?.textContent).toBe('Incidents');
    expect(section.compareDocumentPosition(rows()[0]) & Node.DOCUMENT_POSITION_FOLLOWING)
      .withContext('above the alerts')
      .toBeTruthy();
    expect(section.querySelector('ul')?.getAttribute('aria-label')).toBe('Open incidents');
    const incidents = Array.from(section.querySelectorAll<HTMLElement>('[data-testid="incident"]'));
    expect(incidents.length).withContext('a resolved incident is not listed').toBe(1);
    expect(incidents[0].querySelector('h3')?.textContent).toBe('Site down: Berlin');
    const meta = incidents[0].querySelector('.meta')?.textContent?.replace(/\s+/g, ' ');
    expect(meta).toContain('Acme · since 5 min ago · 3 systems');
    const members = Array.from(incidents[0].querySelectorAll<HTMLElement>('[data-testid="incident-alert"]'));
    expect(members.map((m) => m.querySelector('a')?.textContent?.trim())).toEqual(['web-01', 'web-02', 'web-03']);
    expect(members.map((m) => m.querySelector('a')?.getAttribute('href'))).toEqual([
      '/alerts/11',
      '/alerts/12',
      '/alerts/13',
    ]);
    expect(members.map((m) => m.querySelector('.chip')?.textContent?.trim())).toEqual(['open', 'resolved', 'open']);
    expect(incidents[0].querySelector('ul')?.getAttribute('aria-label')).toBe('Alerts of Site down: Berlin');
  });

  it('shows no incidents section while there are none', async () => {
    (await render(userBody(), [incidentBody({ state: 'resolved' })])).flush([alertBody()]);
    await settle(fixture);
    expect(page().querySelector('[data-testid="incidents"]')).toBeNull();
    expect(page().querySelector('h2')).toBeNull();
    expect(rows().length).toBe(1);
  });

  it('asks for the incidents of the customer picked in the filter', async () => {
    (await render(userBody())).flush([]);
    await settle(fixture);

    (page().querySelector('[data-testid="customer-filter"] .mat-mdc-select-trigger') as HTMLElement).click();
    await settle(fixture);
    (
      Array.from(document.querySelectorAll('mat-option')).find((o) => o.textContent?.trim() === 'Acme') as HTMLElement
    ).click();
    await settle(fixture);
    const incidents = await incidentsRequest();
    expect(incidents.request.params.get('customer')).toBe('10');
    expect(incidents.request.params.get('state')).toBe('open');
    incidents.flush([incidentBody()]);
    (await alertsRequest()).flush([]);
    await settle(fixture);
    expect(page().querySelectorAll('[data-testid="incident"]').length).toBe(1);
  });

  it('offers no acknowledgement to an operator of another customer', async () => {
    (await render(userBody({ role: 'OPERATOR', customerIds: [99] }))).flush([alertBody()]);
    await settle(fixture);
    expect(rows()[0].querySelectorAll('button').length).toBe(0);
  });
});

describe('AlertsPage query parameters', () => {
  it('presets the system filter from ?system= (the system page links there)', async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    const http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody());
    const fixture = TestBed.createComponent(AlertsPage);
    fixture.componentRef.setInput('system', '5');
    await settle(fixture);
    http.expectOne(CUSTOMERS_URL).flush([]);
    (await nextRequest(http, (r) => r.url === INCIDENTS_URL)).flush([]);
    const request = await nextRequest(http, (r) => r.url === ALERTS_URL);
    expect(request.request.params.get('system')).toBe('5');
    request.flush([]);
    // the field names the preset system, looked up by id
    (await nextRequest(http, (r) => r.url === SYSTEMS_PAGE_URL && r.params.get('ids') === '5')).flush(
      pageBody([systemBody({ id: 5, name: 'db-07' })]),
    );
    await settle(fixture);
    expect(
      (fixture.nativeElement as HTMLElement).querySelector<HTMLInputElement>('[data-testid="system-filter"]')?.value,
    ).toBe('db-07');
    http.verify();
  });
});
