import { Clipboard } from '@angular/cdk/clipboard';
import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { userBody } from '@console/core/auth-testing';
import { CHECKS_URL } from '@console/shared/checks/checks-api';
import { CLUSTERS_URL, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { SYSTEMS_URL } from '@console/shared/rules/scope-targets';
import {
  buttonByText,
  nextRequest,
  overlayText,
  pickOption,
  renderAnsweredForTests,
  settle,
  typeInto,
} from '@console/testing';
import { StatusPage, STATUS_PAGES_URL } from './status-pages-api';
import { StatusPagesPage } from './status-pages-page';

const published: StatusPage = {
  id: 3,
  customerId: 10,
  customerName: 'Acme',
  title: 'Acme status',
  announcement: 'Upgrade on Sunday',
  slug: 'AbCdEfGhIjKlMnOpQrStUvWx',
  url: 'https://argus.example.com/status/AbCdEfGhIjKlMnOpQrStUvWx',
  items: [{ kind: 'cluster', id: 100, name: 'prod', displayName: 'Production' }],
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};

describe('StatusPagesPage', () => {
  let fixture: ComponentFixture<StatusPagesPage>;
  let http: HttpTestingController;
  const page = (): HTMLElement => fixture.nativeElement;
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;

  async function render(pages: StatusPage[]): Promise<void> {
    const operator = userBody({ role: 'OPERATOR', customerIds: [10] });
    ({ fixture, http } = await renderAnsweredForTests(StatusPagesPage, operator, STATUS_PAGES_URL, pages));
  }

  async function answerTargets(): Promise<void> {
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
      { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'Europe/Berlin', createdAt: '' },
      { id: 20, name: 'Other', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
    ]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([
      { id: 100, name: 'prod', customerId: 10 },
      { id: 200, name: 'other-prod', customerId: 20 },
    ]);
    (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([
      { id: 7, name: 'web-01.acme.internal', customer: { id: 10, name: 'Acme' }, cluster: null },
    ]);
    (await nextRequest(http, { method: 'GET', url: CHECKS_URL })).flush([
      { id: 9, name: 'Shop front', customerId: 10 },
      { id: 19, name: 'Other shop', customerId: 20 },
    ]);
    await settle(fixture);
  }

  const pick = (testid: string, option: string) => pickOption(fixture, dialog(), testid, option);

  afterEach(() => http?.verify());

  it('lists pages with their public address, and copies it', async () => {
    await render([published]);
    const card = page().querySelector('[data-testid="status-page"]')!;
    expect(card.textContent).toContain('Acme status');
    expect(card.textContent).toContain('Production');
    expect(card.textContent).toContain('Upgrade on Sunday');
    const link = card.querySelector<HTMLAnchorElement>('[data-testid="status-url"]')!;
    expect(link.href).toBe(published.url);
    expect(link.rel).toContain('noopener');
    const copy = spyOn(TestBed.inject(Clipboard), 'copy').and.returnValue(true);
    buttonByText('Copy address', page()).click();
    expect(copy).toHaveBeenCalledWith(published.url);
  });

  it("publishes a page of the customer's own clusters and systems under neutral names by default", async () => {
    await render([]);
    expect(page().querySelector('[data-testid="empty"]')).not.toBeNull();
    buttonByText('New status page', page()).click();
    await settle(fixture);
    await answerTargets();
    await pick('customer', 'Acme');
    typeInto(dialog().querySelector('input[formcontrolname="title"]'), 'Acme status');
    (dialog().querySelector('[data-testid="item-target"] .mat-mdc-select-trigger') as HTMLElement).click();
    await settle(fixture);
    const options = Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim());
    expect(options).toEqual(['prod', 'web-01.acme.internal', 'Shop front'], "only the chosen customer's");
    (document.querySelectorAll<HTMLElement>('mat-option')[1] as HTMLElement).click();
    await settle(fixture);
    const name = dialog().querySelector<HTMLInputElement>('[data-testid="item-name"]')!;
    expect(name.value).toBe('Service 1', 'a neutral name, not the hostname');
    // a check is offered beside the systems, and goes as the system it is
    buttonByText('Add an entry', dialog()).click();
    await settle(fixture);
    (dialog().querySelectorAll('[data-testid="item-target"] .mat-mdc-select-trigger')[1] as HTMLElement).click();
    await settle(fixture);
    Array.from(document.querySelectorAll<HTMLElement>('mat-option'))
      .find((o) => o.textContent?.trim() === 'Shop front')!
      .click();
    await settle(fixture);
    buttonByText('Publish', dialog()).click();

    const post = await nextRequest(http, { method: 'POST', url: STATUS_PAGES_URL });
    expect(post.request.body).toEqual({
      customerId: 10,
      title: 'Acme status',
      items: [
        { systemId: 7, displayName: 'Service 1' },
        { systemId: 9, displayName: 'Service 2' },
      ],
      announcement: '',
    });
    post.flush({ ...published, title: 'Acme status' });
    (await nextRequest(http, { method: 'GET', url: STATUS_PAGES_URL })).flush([published]);
    await settle(fixture);
    expect(overlayText()).toContain('Status page published');
  });

  it("edits the announcement and shows the server's refusal of an entry under its picker", async () => {
    await render([published]);
    buttonByText('Edit', page()).click();
    await settle(fixture);
    await answerTargets();
    typeInto(dialog().querySelector('[data-testid="announcement"]'), 'All done.');
    buttonByText('Save', dialog()).click();
    const patch = await nextRequest(http, { method: 'PATCH', url: `${STATUS_PAGES_URL}/3` });
    expect(patch.request.body).toEqual({
      title: 'Acme status',
      items: [{ clusterId: 100, displayName: 'Production' }],
      announcement: 'All done.',
    });
    patch.flush(
      {
        error: 'items.0.clusterId: no such cluster of this customer',
        code: 'bad_request',
        details: { field: 'items.0.clusterId' },
      },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(dialog().textContent).toContain('No such cluster of this customer');
  });

  it('rotates and revokes after asking', async () => {
    await render([published]);
    buttonByText('New address', page()).click();
    await settle(fixture);
    buttonByText('New address', document.querySelector('argus-confirm-dialog')!).click();
    (await nextRequest(http, { method: 'POST', url: `${STATUS_PAGES_URL}/3/rotate` })).flush(published);
    (await nextRequest(http, { method: 'GET', url: STATUS_PAGES_URL })).flush([published]);
    await settle(fixture);
    buttonByText('Revoke', page()).click();
    await settle(fixture);
    buttonByText('Revoke', document.querySelector('argus-confirm-dialog')!).click();
    (await nextRequest(http, { method: 'DELETE', url: `${STATUS_PAGES_URL}/3` })).flush(null);
    (await nextRequest(http, { method: 'GET', url: STATUS_PAGES_URL })).flush([]);
    await settle(fixture);
    expect(overlayText()).toContain('Status page revoked');
  });
});
