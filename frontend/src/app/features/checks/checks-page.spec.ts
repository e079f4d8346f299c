import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { Check, CHECKS_URL } from '@console/shared/checks/checks-api';
import { checkBody, checkResultBody } from '@console/shared/checks/checks-testing';
import { nextRequest, renderForTests, settle, typeInto } from '@console/testing';
import { answerFleet } from '@console/shared/customers/customers-testing';
import { ChecksPage } from './checks-page';

const shop = checkBody({ id: 1, name: 'Shop front', customerId: 10 });
const vpn = checkBody({
  id: 2,
  name: 'VPN port',
  customerId: 10,
  type: 'tcp',
  settings: { type: 'tcp', host: 'vpn.acme.example', port: 1194 },
  state: 'DOWN',
  lastResult: checkResultBody({ up: false, reason: 'connection refused', status: null, responseMs: null }),
});
const dns = checkBody({
  id: 3,
  name: 'Globex MX',
  customerId: 20,
  type: 'dns',
  settings: { type: 'dns', name: 'globex.example', recordType: 'MX' },
  state: 'PENDING',
  lastResult: null,
});

describe('ChecksPage', () => {
  let fixture: ComponentFixture<ChecksPage>;
  let http: HttpTestingController;

  async function render(user: User, checks: Check[] = [shop, vpn, dns]): Promise<void> {
    ({ fixture, http } = renderForTests(ChecksPage, user));
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CHECKS_URL })).flush(checks);
    await answerFleet(http);
    await settle(fixture);
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const headings = () => Array.from(page().querySelectorAll('h2'), (h) => h.textContent?.trim());
  const rows = () =>
    Array.from(page().querySelectorAll('[data-testid="check"]'), (row) =>
      Array.from(row.querySelectorAll('td'), (cell) => cell.textContent?.trim()).slice(0, 5),
    );
  const button = (label: string) => page().querySelector(`button[aria-label="${label}"]`);

  it('lists the checks per customer with their state, type, target and last result', async () => {
    await render(userBody());

    expect(headings()).toEqual(['Acme', 'Globex']);
    expect(rows()).toEqual([
      ['Shop front', 'Up', 'HTTP(S)', 'https://shop.example.com/', 'HTTP 200 · 48 ms'],
      ['VPN port', 'Down', 'TCP port', 'vpn.acme.example:1194', 'connection refused'],
      ['Globex MX', 'Pending', 'DNS', 'globex.example (MX)', 'Not run yet'],
    ]);
    expect(page().querySelector('[data-testid="counts"]')?.textContent?.trim()).toBe('1 down · 1 pending · 1 up');
    expect(page().querySelector('a[href="/checks/2"]')?.textContent?.trim()).toBe('VPN port');
  });

  it('filters by words of the name, type or target, and by state', async () => {
    await render(userBody());

    typeInto(page().querySelector<HTMLInputElement>('input[type="search"]'), 'acme');
    await settle(fixture);
    expect(rows().map((r) => r[0])).toEqual(['VPN port']);

    typeInto(page().querySelector<HTMLInputElement>('input[type="search"]'), 'nothing like it');
    await settle(fixture);
    expect(page().querySelector('[data-testid="no-match"]')).not.toBeNull();

    typeInto(page().querySelector<HTMLInputElement>('input[type="search"]'), '');
    (page().querySelector('[data-testid="state"] .mat-mdc-select-trigger') as HTMLElement).click();
    await settle(fixture);
    Array.from(document.querySelectorAll<HTMLElement>('mat-option'))
      .find((o) => o.textContent?.trim() === 'Pending')
      ?.click();
    await settle(fixture);
    expect(rows().map((r) => r[0])).toEqual(['Globex MX']);
  });

  it('offers an administrator to add, edit and delete every check', async () => {
    await render(userBody());

    expect(page().textContent).toContain('New check');
    expect(button('Edit Shop front')).not.toBeNull();
    expect(button('Delete Globex MX')).not.toBeNull();
  });

  it('offers an operator the writes at their customers only', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));

    expect(page().textContent).toContain('New check');
    expect(button('Edit Shop front')).not.toBeNull();
    expect(button('Edit Globex MX')).toBeNull();
  });

  it('offers a viewer no write', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10, 20] }));
    expect(page().textContent).not.toContain('New check');
    expect(page().querySelectorAll('button[aria-label^="Edit"], button[aria-label^="Delete"]').length).toBe(0);
    expect(rows().length).toBe(3);
  });

  it('says so when there is no check yet', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }), []);

    expect(page().querySelector('[data-testid="empty"]')?.textContent?.trim()).toBe('No checks yet.');
  });
});
