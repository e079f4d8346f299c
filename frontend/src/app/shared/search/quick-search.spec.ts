import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { MatDialog } from '@angular/material/dialog';
import { Router } from '@angular/router';

import { nextRequest, provideForTests, typeInto } from '@console/testing';
import { hitGroups, openQuickSearch } from './quick-search';
import { SEARCH_URL, SearchResults } from './search-api';

describe('QuickSearch', () => {
  let http: HttpTestingController;
  let navigate: jasmine.Spy;
  afterEach(() => {
    http?.verify();
    TestBed.inject(MatDialog).closeAll();
  });

  const turn = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
  const input = () => document.querySelector<HTMLInputElement>('mat-dialog-container input')!;
  const options = () =>
    Array.from(document.querySelectorAll<HTMLElement>('mat-option'), (o) =>
      Array.from(o.querySelectorAll('.title, .detail'), (part) => part.textContent?.trim()).join(' / '),
    );
  const status = () => document.querySelector('[data-testid="search-status"]')?.textContent?.trim();

  const RESULTS: SearchResults = {
    systems: [{ id: 7, name: 'db-01', hostname: 'db-01.acme.net', status: 'ONLINE', customerName: 'Acme' }],
    checks: [{ id: 9, name: 'db port', type: 'tcp', state: 'DOWN', customerName: 'Acme' }],
    customers: [{ id: 3, name: 'Acme DB', active: false }],
    containers: [
      {
        name: 'db-backup',
        image: 'registry.example/ops/pg-backup:2',
        systemId: 7,
        systemName: 'db-01',
        running: false,
      },
      { name: 'db-old', image: null, systemId: 7, systemName: 'db-01', running: true },
    ],
    alerts: [
      {
        id: 42,
        ruleKey: 'disk.full',
        severity: 'CRITICAL',
        state: 'open',
        message: 'Disk / is 97% full',
        systemName: 'db-01',
        timeZone: 'UTC',
      },
    ],
  };

  async function search(term: string) {
    typeInto(input(), term);
    input().dispatchEvent(new Event('focusin'));
    await turn(200);
    return nextRequest(http, (r) => r.url === SEARCH_URL && r.params.get('q') === term.trim());
  }

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    navigate = spyOn(TestBed.inject(Router), 'navigate').and.resolveTo(true);
    openQuickSearch(TestBed.inject(MatDialog));
    await turn();
  });

  it('opens once, focused on its field', () => {
    openQuickSearch(TestBed.inject(MatDialog));

    expect(document.querySelectorAll('mat-dialog-container').length).toBe(1);
    expect(document.activeElement).toBe(input());
  });

  it('asks the server while typing and lists systems, checks, customers, containers and alerts by kind', async () => {
    (await search(' db ')).flush(RESULTS);
    await turn();

    expect(Array.from(document.querySelectorAll('.mat-mdc-optgroup-label'), (g) => g.textContent?.trim())).toEqual([
      'Systems',
      'Checks',
      'Customers',
      'Containers',
      'Alerts',
    ]);
    expect(options()).toEqual([
      'db-01 / Acme · db-01.acme.net',
      'db port / Acme · TCP port check · down',
      'Acme DB / Customer, inactive',
      'db-backup / Container on db-01 · registry.example/ops/pg-backup:2 · not running',
      'db-old / Container on db-01 · running',
      '#42 Disk / is 97% full / db-01 · critical · open',
    ]);
    expect(status()).toBe('6 matches');
  });

  it("shows the times in an alert's text on its customer's clock", () => {
    const now = Date.parse('2026-11-28T10:27:00Z');
    const [alerts] = hitGroups(
      {
        systems: [],
        checks: [],
        customers: [],
        containers: [],
        alerts: [
          {
            id: 5,
            ruleKey: 'system.offline',
            severity: 'CRITICAL',
            state: 'open',
            message: 'No report since 2026-11-28T10:14:44.479Z',
            systemName: 'db-01',
            timeZone: 'Asia/Tokyo',
          },
        ],
      },
      now,
    );

    expect(alerts.hits[0].title).toBe('#5 No report since 19:14 (12 min ago)');
  });

  it('goes to what was chosen and closes', async () => {
    (await search('db')).flush(RESULTS);
    await turn();

    document.querySelectorAll<HTMLElement>('mat-option')[2].click();
    await turn();

    expect(navigate).toHaveBeenCalledWith(['/customers'], { fragment: 'customer-3' });
    expect(document.querySelector('mat-dialog-container')).toBeNull();
  });

  it("leads from a check to the check's page", async () => {
    (await search('db')).flush(RESULTS);
    await turn();

    document.querySelectorAll<HTMLElement>('mat-option')[1].click();
    await turn();

    expect(navigate).toHaveBeenCalledWith(['/checks', '9'], {});
  });

  it("leads from a container to its system's Containers tab", async () => {
    (await search('backup')).flush(RESULTS);
    await turn();

    document.querySelectorAll<HTMLElement>('mat-option')[3].click();
    await turn();

    expect(navigate).toHaveBeenCalledWith(['/systems', '7'], {
      queryParams: { tab: 'containers', container: 'db-backup' },
    });
  });

  it('says when nothing matched, and when the search failed', async () => {
    (await search('zz')).flush({ systems: [], checks: [], customers: [], containers: [], alerts: [] });
    await turn();
    expect(status()).toBe('No matches');

    (await search('zzz')).flush({ error: 'Service unavailable' }, { status: 503, statusText: 'Unavailable' });
    await turn();
    expect(status()).toBe('The search failed; try again.');
  });
});
