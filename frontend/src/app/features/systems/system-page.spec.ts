import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, overlayText, renderForTests, settle } from '@console/testing';
import { AGENT_SETTINGS_URL } from '@console/shared/agent-settings/agent-settings-api';
import { ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { CLUSTERS_URL, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { SystemDetail, systemUrl } from '@console/shared/systems/systems-api';
import { SystemPage } from './system-page';
import { systemDetailBody } from '@console/shared/systems/systems-testing';
import { customerBody, twoCustomers } from '@console/shared/customers/customers-testing';

describe('SystemPage', () => {
  let fixture: ComponentFixture<SystemPage>;
  let http: HttpTestingController;

  const system = systemDetailBody({ id: 7, name: 'web-01', customer: { id: 10, name: 'Acme' } });

  async function render(user: User, body: SystemDetail = system): Promise<void> {
    ({ fixture, http } = renderForTests(SystemPage, user));
    fixture.componentRef.setInput('id', String(body.id));
    await settle(fixture);
    http.expectOne({ method: 'GET', url: systemUrl(body.id) }).flush(body);
    await settle(fixture);
    // The charts ask which series exist; none here.
    http.expectOne(`${systemUrl(body.id)}/series`).flush([]);
    // Its agent settings; none here (features/agent-settings has their specs).
    http.expectOne(`${AGENT_SETTINGS_URL}?system=${body.id}`).flush({ settings: [], effective: [] });
    // Its alert history; none here (features/alerts has its specs).
    http.expectOne((r) => r.url === ALERTS_URL && r.params.get('system') === String(body.id)).flush([]);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const actions = () =>
    Array.from(page().querySelectorAll('[data-testid="actions"] button'), (b) => b.textContent?.trim());
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;

  async function click(button: HTMLElement | null): Promise<void> {
    button!.click();
    await settle(fixture);
  }

  it('shows name, status, placement and the host facts', async () => {
    await render(userBody());

    expect(page().querySelector('h1')?.textContent).toContain('web-01');
    expect(page().querySelector('h1 argus-status-badge')?.textContent?.trim()).toBe('Online');
    expect(page().querySelector('[data-testid="placement"]')?.textContent?.trim()).toBe('Acme · prod');
    const facts = Object.fromEntries(
      Array.from(page().querySelectorAll('.facts > div'), (d) => [
        d.querySelector('dt')?.textContent?.trim(),
        d.querySelector('dd')?.textContent?.trim(),
      ]),
    );
    expect(facts).toEqual(
      jasmine.objectContaining({
        'Operating system': 'Ubuntu 24.04',
        Kernel: '6.8.0-45',
        Architecture: 'x86_64',
        'CPU cores': '8',
        'Agent version': '2.28.1',
        'Last seen': 'just now',
      }),
    );
    expect(page().querySelector('[data-testid="no-metrics"]')?.textContent).toContain('No metrics in the last day');
  });

  describe('actions by role', () => {
    it('offers an administrator everything, re-enroll included', async () => {
      await render(userBody({ role: 'ADMIN' }));

      expect(actions()).toEqual(['Rename', 'Move', 'Re-enroll', 'Delete']);
      expect(page().querySelector('[data-testid="offline-toggle"]')).not.toBeNull();
    });

    it('offers an operator granted the customer everything but re-enroll', async () => {
      await render(userBody({ role: 'OPERATOR', customerIds: [10] }));

      expect(actions()).toEqual(['Rename', 'Move', 'Delete']);
      expect(page().querySelector('[data-testid="offline-toggle"]')).not.toBeNull();
    });

    it('offers nothing to an operator of other customers', async () => {
      await render(userBody({ role: 'OPERATOR', customerIds: [99] }));

      expect(page().querySelector('[data-testid="actions"]')).toBeNull();
      expect(page().querySelector('[data-testid="offline-toggle"]')).toBeNull();
    });

    it('offers nothing to a viewer, and shows the offline-alerts setting as text', async () => {
      await render(userBody({ role: 'VIEWER', customerIds: [10] }));

      expect(page().querySelector('[data-testid="actions"]')).toBeNull();
      expect(page().querySelector('[data-testid="offline-toggle"]')).toBeNull();
      expect(page().querySelector('.offline-state')?.textContent).toContain('Offline alerts: on');
    });
  });

  it('renames after the dialog and reloads the system', async () => {
    await render(userBody());
    await click(buttonByText('Rename', page()));
    const input = dialog().querySelector('input') as HTMLInputElement;
    input.value = 'web-01-old';
    input.dispatchEvent(new Event('input'));
    await click(buttonByText('Rename', dialog()));

    const patch = http.expectOne({ method: 'PATCH', url: systemUrl(7) });
    expect(patch.request.body).toEqual({ name: 'web-01-old' });
    patch.flush({ ...system, name: 'web-01-old' });
    http.expectOne(systemUrl(7)).flush({ ...system, name: 'web-01-old' });
    await settle(fixture);

    expect(page().querySelector('h1')?.textContent).toContain('web-01-old');
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Renamed to web-01-old');
  });

  it('switches offline alerts off', async () => {
    await render(userBody());
    await click(page().querySelector('[data-testid="offline-toggle"] button'));

    const patch = http.expectOne({ method: 'PATCH', url: systemUrl(7) });
    expect(patch.request.body).toEqual({ offlineAlerts: false });
    patch.flush({ ...system, offlineAlerts: false });
    http.expectOne(systemUrl(7)).flush({ ...system, offlineAlerts: false });
    await settle(fixture);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Offline alerts off');
  });

  it('moves to another cluster of a customer the account may write at', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10, 20] }));
    await click(buttonByText('Move', page()));
    http.expectOne(CUSTOMERS_URL).flush([...twoCustomers(), customerBody({ id: 30, name: 'Initech' })]);
    http.expectOne(CLUSTERS_URL).flush([
      { id: 100, name: 'prod', customerId: 10 },
      { id: 200, name: 'office', customerId: 20 },
    ]);
    await settle(fixture);

    await click(dialog().querySelector('mat-select[formcontrolname="customerId"]') as HTMLElement);
    const customers = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    expect(customers.map((o) => o.textContent?.trim())).toEqual(['Acme', 'Globex']);
    await click(customers[1]);
    await click(dialog().querySelector('mat-select[formcontrolname="clusterId"]') as HTMLElement);
    const clusters = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    expect(clusters.map((o) => o.textContent?.trim())).toEqual(['No cluster', 'office']);
    await click(clusters[1]);
    await click(buttonByText('Move', dialog()));

    const patch = http.expectOne({ method: 'PATCH', url: systemUrl(7) });
    expect(patch.request.body).toEqual({ customerId: 20, clusterId: 200 });
    const moved = { ...system, customer: { id: 20, name: 'Globex' }, cluster: { id: 200, name: 'office' } };
    patch.flush(moved);
    http.expectOne(systemUrl(7)).flush(moved);
    await settle(fixture);

    expect(page().querySelector('[data-testid="placement"]')?.textContent?.trim()).toBe('Globex · office');
  });

  it('moves to another customer without a cluster', async () => {
    await render(userBody({ role: 'ADMIN' }));
    await click(buttonByText('Move', page()));
    http.expectOne(CUSTOMERS_URL).flush(twoCustomers());
    http.expectOne(CLUSTERS_URL).flush([{ id: 100, name: 'prod', customerId: 10 }]);
    await settle(fixture);

    await click(dialog().querySelector('mat-select[formcontrolname="customerId"]') as HTMLElement);
    await click(Array.from(document.querySelectorAll<HTMLElement>('mat-option'))[1]);
    expect(dialog().querySelector('mat-select[formcontrolname="clusterId"]')?.textContent?.trim()).toBe('No cluster');
    await click(buttonByText('Move', dialog()));

    const patch = http.expectOne({ method: 'PATCH', url: systemUrl(7) });
    expect(patch.request.body).toEqual({ customerId: 20, clusterId: null });
    patch.flush({ ...system, customer: { id: 20, name: 'Globex' }, cluster: null });
    http.expectOne(systemUrl(7)).flush({ ...system, customer: { id: 20, name: 'Globex' }, cluster: null });
    await settle(fixture);

    expect(page().querySelector('[data-testid="placement"]')?.textContent?.trim()).toBe('Globex · No cluster');
  });

  it('re-enrolls after a confirmation that explains what happens', async () => {
    await render(userBody());
    await click(buttonByText('Re-enroll', page()));

    expect(overlayText()).toContain('The next report that carries a valid enrollment key binds the host anew');
    await click(buttonByText('Re-enroll', dialog()));

    http
      .expectOne({ method: 'POST', url: `${systemUrl(7)}/re-enroll` })
      .flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('waits to be enrolled again');
  });

  it('deletes after confirmation and returns to the list', async () => {
    await render(userBody());
    const navigate = spyOn(TestBed.inject(Router), 'navigateByUrl').and.resolveTo(true);

    await click(buttonByText('Delete', page()));
    await click(buttonByText('Cancel', dialog()));
    http.expectNone({ method: 'DELETE' });

    await click(buttonByText('Delete', page()));
    await click(buttonByText('Delete', dialog()));
    http.expectOne({ method: 'DELETE', url: systemUrl(7) }).flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith('/systems');
  });

  it("sends a network check's id on to the check's page (alerts and the Overview link checks by it)", async () => {
    ({ fixture, http } = renderForTests(SystemPage, userBody()));
    const navigate = spyOn(TestBed.inject(Router), 'navigate').and.resolveTo(true);
    fixture.componentRef.setInput('id', '9');
    await settle(fixture);
    http.expectOne({ method: 'GET', url: systemUrl(9) }).flush(systemDetailBody({ id: 9, kind: 'check' }));
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith(['/checks', 9], { replaceUrl: true });
    http.match(() => true); // the page's own reads: it is leaving
  });

  it('shows the refusal when the system is not visible', async () => {
    ({ fixture, http } = renderForTests(SystemPage));
    fixture.componentRef.setInput('id', '404');
    await settle(fixture);
    http.expectOne(systemUrl(404)).flush({ error: 'No such system' }, { status: 404, statusText: 'Not Found' });
    await settle(fixture);

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('No such system');
  });
});
