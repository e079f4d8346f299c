import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { Check, checkUrl } from '@console/shared/checks/checks-api';
import { checkBody, checkResultBody } from '@console/shared/checks/checks-testing';
import { systemUrl } from '@console/shared/systems/systems-api';
import { renderForTests, settle } from '@console/testing';
import { CheckPage } from './check-page';

describe('CheckPage', () => {
  let fixture: ComponentFixture<CheckPage>;
  let http: HttpTestingController;

  const shop = checkBody({
    id: 7,
    name: 'Shop front',
    customerId: 10,
    intervalSeconds: 30,
    retries: 2,
    maxResponseMs: 500,
    lastResult: checkResultBody({ keywordMatched: true }),
  });

  async function render(user: User, body: Check = shop): Promise<void> {
    ({ fixture, http } = renderForTests(CheckPage, user));
    fixture.componentRef.setInput('id', String(body.id));
    await settle(fixture);
    http.expectOne({ method: 'GET', url: checkUrl(body.id) }).flush(body);
    await settle(fixture);
    // a check's series are its system's (the same id); none here (shared/charts has their specs)
    http.expectOne(`${systemUrl(body.id)}/series`).flush([]);
    http.expectOne((r) => r.url === ALERTS_URL && r.params.get('system') === String(body.id)).flush([]);
    await settle(fixture);
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const actions = () =>
    Array.from(page().querySelectorAll('[data-testid="actions"] button'), (b) => b.textContent?.trim());

  it('shows the state, what it checks, its timing and the newest result of each location', async () => {
    await render(userBody());

    expect(page().querySelector('h1')?.textContent).toContain('Shop front');
    expect(page().querySelector('h1 argus-check-state-badge')?.textContent?.trim()).toBe('Up');
    expect(page().querySelector('[data-testid="what"]')?.textContent?.trim()).toBe(
      'HTTP(S) · https://shop.example.com/',
    );
    const facts = Object.fromEntries(
      Array.from(page().querySelectorAll('.facts > div'), (d) => [
        d.querySelector('dt')?.textContent?.trim(),
        d.querySelector('dd')?.textContent?.replace(/\s+/g, ' ').trim(),
      ]),
    );
    expect(facts).toEqual(
      jasmine.objectContaining({
        Runs: 'every 30 s, timeout 10 s',
        'Down after': '3 failed runs in a row (retried every 20 s)',
        'Slow above': '500 ms',
      }),
    );
    const location = page().querySelector('[data-testid="location"]');
    expect(Array.from(location?.querySelectorAll('td') ?? [], (c) => c.textContent?.trim()).slice(0, 3)).toEqual([
      'Argus',
      'Up',
      'HTTP 200 · 48 ms · keyword as expected',
    ]);
    expect(page().querySelector('[data-testid="no-metrics"]')?.textContent).toContain('after the first runs');
  });

  it('offers the writers of its customer Edit, Pause and Delete, and a viewer nothing', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));
    expect(actions()).toEqual(['Edit', 'Pause', 'Delete']);
  });

  it('offers Resume for a paused check', async () => {
    await render(userBody(), { ...shop, enabled: false, state: 'PAUSED' });
    expect(actions()).toEqual(['Edit', 'Resume', 'Delete']);
  });

  it('offers a viewer no action', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }));
    expect(page().querySelector('[data-testid="actions"]')).toBeNull();
  });

  it('shows each location the server answers, by the name it gives, one without a result yet as not run', async () => {
    const pending = {
      location: 'system:12',
      name: 'edge-01',
      state: 'PENDING' as const,
      stateSince: null,
      failures: 0,
      lastResult: null,
      stale: false,
    };
    await render(userBody(), { ...shop, locations: ['argus', 'system:12'], results: [...shop.results, pending] });
    const rows = Array.from(page().querySelectorAll('[data-testid="location"]'), (row) =>
      Array.from(row.querySelectorAll('td'), (c) => c.textContent?.trim()).slice(0, 3),
    );
    expect(rows).toEqual([
      ['Argus', 'Up', 'HTTP 200 · 48 ms · keyword as expected'],
      ['edge-01', '—', 'Not run yet'],
    ]);
  });
});
