import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, DeferBlockBehavior, DeferBlockState, TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { HEALTH_URL } from '@console/core/health';
import { healthBody } from '@console/core/health-testing';
import { LIVE_SOCKET } from '@console/core/live-socket';
import { fakeSockets, FakeSocket } from '@console/core/live-testing';
import { CHECKS_SUMMARY_URL } from '@console/shared/checks/checks-api';
import { provideForTests } from '@console/testing';
import { Overview, OverviewCustomer, OVERVIEW_URL, TREND_URL } from './overview-api';
import { OverviewPage } from './overview-page';
import { statusCounts } from './overview-testing';

function overviewBody(critical = 1): Overview {
  return {
    totals: {
      customers: 2,
      systems: 3,
      byStatus: statusCounts({ ONLINE: 2, CRITICAL: 1 }),
      openAlerts: { critical, warning: 2, info: 0 },
      inMaintenance: 1,
      openIncidents: 1,
    },
    customers: [
      {
        id: 7,
        name: 'Acme',
        active: true,
        systems: 2,
        byStatus: statusCounts({ ONLINE: 1, CRITICAL: 1 }),
        openAlerts: { critical, warning: 2, info: 0 },
        inMaintenance: 1,
        worstOffenders: [{ systemId: 42, systemName: 'web-02', status: 'CRITICAL', alertMinutes: 120 }],
      },
      {
        id: 8,
        name: 'Globex',
        active: false,
        systems: 1,
        byStatus: statusCounts({ ONLINE: 1 }),
        openAlerts: { critical: 0, warning: 0, info: 0 },
        inMaintenance: 0,
        worstOffenders: [],
      },
    ],
    incidents: [
      {
        id: 5,
        title: 'Site down: web',
        customerId: 7,
        customerName: 'Acme',
        clusterId: 3,
        clusterName: 'web',
        startedAt: '2026-11-25T10:00:00.000Z',
        openAlerts: 2,
      },
    ],
  };
}

describe('OverviewPage', () => {
  let fixture: ComponentFixture<OverviewPage>;
  let http: HttpTestingController;
  let sockets: FakeSocket[];

  // the health line polls with an RxJS timer; jasmine's clock drives it
  beforeEach(() => {
    jasmine.clock().install();
    const fake = fakeSockets();
    sockets = fake.sockets;
    TestBed.configureTestingModule({
      // a card's details are drawn as it nears the screen: the tests draw them by hand
      deferBlockBehavior: DeferBlockBehavior.Manual,
      providers: [...provideForTests(), provideRouter([]), { provide: LIVE_SOCKET, useValue: fake.factory }],
    });
    TestBed.inject(AuthService).updateUser(userBody());
    TestBed.tick();
    http = TestBed.inject(HttpTestingController);
    fixture = TestBed.createComponent(OverviewPage);
    fixture.detectChanges();
  });
  afterEach(() => {
    fixture.destroy();
    jasmine.clock().uninstall();
  });

  const page = (): HTMLElement => fixture.nativeElement;
  const text = (selector: string) => page().querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

  const totals = () =>
    Array.from(page().querySelectorAll('.totals div')).map(
      (d) => `${d.querySelector('dt')?.textContent?.trim()} ${d.querySelector('dd')?.textContent?.trim()}`,
    );
  const items = (selector: string) =>
    Array.from(page().querySelectorAll(`${selector} li`)).map((li) => li.textContent?.replace(/\s+/g, ' ').trim());

  async function drawDetails(): Promise<void> {
    for (const block of await fixture.getDeferBlocks()) await block.render(DeferBlockState.Complete);
  }

  function load(body = overviewBody()): void {
    http.expectOne(OVERVIEW_URL).flush(body);
    jasmine.clock().tick(0);
    http.expectOne(HEALTH_URL).flush(healthBody());
    fixture.detectChanges();
  }

  it('shows progress, then the fleet line first, Argus health named as such, and the totals with their labels', () => {
    expect(page().querySelector('mat-progress-bar')).not.toBeNull();
    load();

    expect(page().querySelector('h1')?.textContent).toBe('Overview');
    const lines = Array.from(page().querySelectorAll('[role="status"]')).map((l) => l.getAttribute('data-testid'));
    expect(lines.slice(0, 2)).toEqual(['fleet-line', 'health']);
    expect(text('[data-testid="fleet-line"]')).toContain('1 of 3 systems critical · 3 alerts open, 1 critical');
    expect(text('[data-testid="health"]')).toContain('Argus services: all operational');
    expect(page().querySelector('[data-testid="health"] a')?.getAttribute('href')).toBe('/status');
    expect(totals()).toContain('Critical alerts 1');
    expect(totals()).toContain('In maintenance 1');
    expect(totals()).toContain('Open incidents 1');
    // status in words next to each count, never by colour alone
    expect(items('[aria-label="All systems by status"]')).toEqual(['Critical 1', 'Online 2']);
  });

  it("shows the fleet's trend of the last 24 hours in the Fleet section", () => {
    load();
    const at = new Date().toISOString();
    http.expectOne(TREND_URL).flush({ points: [{ at, systemsDown: 3, alertsOpen: 5 }] });
    fixture.detectChanges();

    const rows = Array.from(page().querySelectorAll('[data-testid="fleet"] [data-testid="trend"] .row'));
    expect(
      rows.map((row) => [row.querySelector('dt')?.textContent, row.querySelector('.summary')?.textContent]),
    ).toEqual([
      ['Systems down, 24 h', 'now 3, the 24 h peak'],
      ['Alerts open, 24 h', 'now 5, the 24 h peak'],
    ]);
  });

  it('lists each customer with a link to its systems, its alerts, and worst offenders linked to their pages', async () => {
    load();
    const customers = page().querySelectorAll('[data-testid="customer"]');
    expect(customers.length).toBe(2);
    const acme = customers[0] as HTMLElement;
    expect(acme.querySelector('h3 a')?.getAttribute('href')).toBe('/systems#customer-7');
    expect(acme.querySelector('[data-testid="customer-alerts"]')?.textContent).toContain('1 critical');
    // systems by status and the worst offenders wait until the card nears the screen
    expect(acme.querySelector('[data-testid="customer-details"]')).toBeNull();
    await drawDetails();
    expect(items('[aria-label="Systems of Acme by status"]')).toEqual(['Critical 1', 'Online 1']);
    expect(acme.querySelector('caption')?.textContent).toContain('Most alert-minutes in the last 24 hours');
    const row = acme.querySelector('[data-testid="offender"]') as HTMLElement;
    expect(row.querySelector('a')?.getAttribute('href')).toBe('/systems/42');
    expect(row.textContent).toContain('Critical');
    expect(row.textContent).toContain('120');
    const globex = customers[1] as HTMLElement;
    expect(globex.textContent).toContain('Inactive');
    expect(globex.textContent).toContain('No alerts in the last 24 hours.');
    expect(text('[data-testid="incidents"]')).toContain('Site down: web');
    expect(text('[data-testid="incidents"]')).toContain('2 open alerts');
  });

  it("shows the fleet's checks and each customer's checks by state beside its systems", () => {
    load();
    expect(page().querySelector('[data-testid="customer-checks"]')).toBeNull();
    http
      .expectOne(CHECKS_SUMMARY_URL)
      .flush([{ customerId: 7, total: 3, byState: { PENDING: 0, UP: 2, DOWN: 1, DEGRADED: 0, PAUSED: 0 } }]);
    fixture.detectChanges();

    expect(totals()).toContain('Checks 3');
    expect(totals()).toContain('Checks down 1');
    const [acme, globex] = Array.from(page().querySelectorAll('[data-testid="customer"]'));
    const line = acme?.querySelector('[data-testid="customer-checks"]');
    expect(line?.textContent?.replace(/\s+/g, ' ').trim()).toBe('3 checks: Down 1, Up 2');
    expect(line?.querySelector('a')?.getAttribute('href')).toBe('/checks');
    expect(globex?.querySelector('[data-testid="customer-checks"]')).toBeNull();
  });

  it('draws the customers needing attention first, each group by name, and says how many need it', () => {
    const body = overviewBody();
    const [acme, globex] = body.customers as [OverviewCustomer, OverviewCustomer];
    const calm = (id: number, name: string): OverviewCustomer => ({ ...globex, id, name, active: true });
    // Acme (a critical system) needs attention; Globex, Aaron and Zed are calm; Info Inc has only an info alert
    body.customers = [
      calm(1, 'Aaron'),
      acme,
      globex,
      { ...calm(9, 'Info Inc'), openAlerts: { critical: 0, warning: 0, info: 3 } },
      { ...calm(10, 'Warned'), openAlerts: { critical: 0, warning: 1, info: 0 } },
      calm(11, 'Zed'),
    ];
    load(body);
    const names = Array.from(page().querySelectorAll('[data-testid="customer"] h3 a')).map((a) =>
      a.textContent?.trim(),
    );
    expect(names).toEqual(['Acme', 'Warned', 'Aaron', 'Globex', 'Info Inc', 'Zed']);
    expect(text('[data-testid="attention"]')).toContain('2 of 6 customers need attention');

    body.customers = [calm(1, 'Aaron')];
    sockets[0].accept();
    const sid = sockets[0].subs().find((s) => s['topic'] === 'overview')?.['sid'];
    sockets[0].receive({ t: 'snap', sid, rev: 2, data: body });
    fixture.detectChanges();
    expect(text('[data-testid="attention"]')).toContain('No customer needs attention');
  });

  it('follows the live overview snapshot without another request', () => {
    load();
    sockets[0].accept();
    const sid = sockets[0].subs().find((s) => s['topic'] === 'overview')?.['sid'];
    expect(sid).toBeDefined();
    sockets[0].receive({ t: 'snap', sid, rev: 2, data: overviewBody(4) });
    fixture.detectChanges();

    http.expectNone(OVERVIEW_URL);
    expect(totals()).toContain('Critical alerts 4');
    expect(text('[data-testid="fleet-line"]')).toContain('6 alerts open, 4 critical');
  });

  it('says in its first line that systems are down while Argus itself is fine', () => {
    const body = overviewBody(10);
    body.totals = { ...body.totals, systems: 11, byStatus: statusCounts({ ONLINE: 1, OFFLINE: 10 }) };
    load(body);
    const line = page().querySelector('[data-testid="fleet-line"]');
    expect(line?.textContent).toContain('10 of 11 systems offline');
    expect(line?.classList).toContain('banner--down');
    expect(text('[data-testid="health"]')).toContain('Argus services: all operational');
  });

  it('says when the API cannot be reached', () => {
    http.expectOne(OVERVIEW_URL).flush('down', { status: 502, statusText: 'Bad Gateway' });
    jasmine.clock().tick(0);
    http.expectOne(HEALTH_URL).error(new ProgressEvent('error'));
    fixture.detectChanges();

    expect(page().querySelector('[role="alert"]')).not.toBeNull();
    expect(text('[data-testid="health"]')).toContain('The Argus API is unreachable');
  });
});
