import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, settle, typeInto, renderAnsweredForTests } from '@console/testing';
import { CLUSTERS_URL, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { SYSTEMS_URL } from '@console/shared/rules/scope-targets';
import { MaintenanceWindow, WINDOWS_URL } from './maintenance-api';
import { MaintenancePage } from './maintenance-page';

const weekly: MaintenanceWindow = {
  id: 1,
  name: 'Backups',
  customerId: 10,
  customerName: 'Acme',
  timeZone: 'Europe/Berlin',
  scope: { type: 'cluster', id: 100, name: 'prod' },
  kind: 'weekly',
  startsAt: null,
  endsAt: null,
  weekdays: [0, 3],
  startTime: '02:00',
  durationMinutes: 90,
  createdBy: { id: 1, name: 'Ada' },
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
  activeNow: true,
};

describe('MaintenancePage', () => {
  let fixture: ComponentFixture<MaintenancePage>;
  let http: HttpTestingController;

  async function render(user: User, windows: MaintenanceWindow[]): Promise<void> {
    ({ fixture, http } = await renderAnsweredForTests(MaintenancePage, user, WINDOWS_URL, windows));
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;

  it("lists windows with their schedule in the customer's time zone and whether they are active", async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }), [weekly]);
    const row = page().querySelector('[data-testid="window"]')!;
    expect(row.textContent).toContain('Cluster prod (Acme)');
    expect(row.querySelector('[data-testid="schedule"]')?.textContent).toContain(
      'Weekly: Sun, Wed at 02:00 for 1 h 30 min (Europe/Berlin)',
    );
    expect(row.querySelector('[data-testid="active"]')).not.toBeNull();
    expect(page().querySelectorAll('button').length).withContext('a viewer changes nothing').toBe(0);
  });

  it('creates a weekly window at a customer, picking weekdays as chips', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), []);
    expect(page().querySelector('[data-testid="empty"]')).not.toBeNull();

    buttonByText('New window', page()).click();
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
      { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'Europe/Berlin', createdAt: '' },
      { id: 20, name: 'Other', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
    ]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([]);
    (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([]);
    await settle(fixture);
    const dialog = document.querySelector('mat-dialog-container') as HTMLElement;

    typeInto(dialog.querySelector('input[name="name"]'), 'Patch night');
    (dialog.querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await settle(fixture);
    const options = Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim());
    expect(options).toEqual(['Acme'], 'only customers the operator may write at');
    (document.querySelector('mat-option') as HTMLElement).click();
    await settle(fixture);
    buttonByText('Weekly', dialog).click();
    await settle(fixture);
    expect(dialog.querySelector('[data-testid="zone"]')?.textContent).toContain('Europe/Berlin');
    expect(dialog.querySelector('[data-testid="history-note"]')?.textContent).toContain(
      'keep the windows as they were',
    );
    for (const day of ['Tue', 'Thu']) {
      (Array.from(dialog.querySelectorAll('mat-chip-option')).find((c) => c.textContent?.includes(day)) as HTMLElement)
        .querySelector('button')!
        .click();
    }
    typeInto(dialog.querySelector('input[type="time"]'), '23:30');
    typeInto(dialog.querySelector('input[formcontrolname="durationMinutes"]'), '120');
    await settle(fixture);
    buttonByText('Create window', dialog).click();

    const post = await nextRequest(http, { method: 'POST', url: WINDOWS_URL });
    expect(post.request.body).toEqual({
      name: 'Patch night',
      scope: { type: 'customer', id: 10 },
      kind: 'weekly',
      startsAt: null,
      endsAt: null,
      weekdays: [2, 4],
      startTime: '23:30',
      durationMinutes: 120,
    });
    post.flush({ ...weekly, id: 2, name: 'Patch night' });
    (await nextRequest(http, { method: 'GET', url: WINDOWS_URL })).flush([{ ...weekly, id: 2, name: 'Patch night' }]);
    await settle(fixture);
    expect(page().textContent).toContain('Patch night');
  });
  it("edits a one-off window in the customer's time zone and shows the server's field error under the field", async () => {
    const once: MaintenanceWindow = {
      ...weekly,
      kind: 'once',
      weekdays: null,
      startTime: null,
      durationMinutes: null,
      startsAt: '2026-11-22T10:00:00.000Z',
      endsAt: '2026-11-22T12:00:00.000Z',
      activeNow: false,
    };
    await render(userBody(), [once]);
    const schedule = page().querySelector('[data-testid="schedule"]')?.textContent ?? '';
    expect(schedule).toContain('Once:');
    // 10:00 UTC is 11:00 in Berlin in November, whatever the browser's zone
    expect(schedule).toContain('11:00');
    expect(schedule).toContain('(Europe/Berlin)');

    (page().querySelector('button[aria-label="Edit Backups"]') as HTMLElement).click();
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
      { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'Europe/Berlin', createdAt: '' },
    ]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([{ id: 100, name: 'prod', customerId: 10 }]);
    (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([]);
    await settle(fixture);
    const dialog = document.querySelector('mat-dialog-container') as HTMLElement;
    const starts = dialog.querySelector('input[formcontrolname="startsAt"]') as HTMLInputElement;
    expect(starts.value).toBe('2026-11-22T11:00');
    expect(dialog.querySelector('[data-testid="once-zone"]')?.textContent).toContain('Europe/Berlin');
    typeInto(dialog.querySelector('input[formcontrolname="endsAt"]'), starts.value);
    await settle(fixture);
    buttonByText('Save', dialog).click();

    const patch = await nextRequest(http, { method: 'PATCH', url: `${WINDOWS_URL}/1` });
    expect(patch.request.body).toEqual(
      jasmine.objectContaining({ kind: 'once', startsAt: '2026-11-22T10:00:00.000Z', weekdays: null }),
    );
    patch.flush(
      { error: 'endsAt: must be after startsAt', code: 'bad_request', details: { field: 'endsAt' } },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(dialog.querySelector('mat-error')?.textContent).toContain('Must be after startsAt');
  });
});
