import { HttpTestingController } from '@angular/common/http/testing';

import { userBody } from '@console/core/auth-testing';
import { CHECKS_TRY_URL, CHECKS_URL, checkUrl } from '@console/shared/checks/checks-api';
import { checkBody, checkCreateBody, checkResultBody, httpSettingsBody } from '@console/shared/checks/checks-testing';
import { buttonByText, dialogElement, nextRequest, openDialogForTests, turn, typeInto } from '@console/testing';
import { answerFleet, twoCustomers } from '@console/shared/customers/customers-testing';
import { CheckDialog, CheckDialogData } from './check-dialog';

describe('CheckDialog', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function open(data: CheckDialogData, user = userBody({ role: 'OPERATOR', customerIds: [10] })) {
    const opened = await openDialogForTests(CheckDialog, data, user);
    http = opened.http;
    await answerFleet(http, twoCustomers(), [{ id: 5, customerId: 10, name: 'web' }]);
    await turn();
    return opened.ref;
  }

  const field = (label: string): HTMLInputElement => {
    const found = Array.from(dialogElement().querySelectorAll('mat-form-field')).find(
      (f) => f.querySelector('mat-label')?.textContent?.trim() === label,
    );
    const input = found?.querySelector<HTMLInputElement>('input');
    if (!input) throw new Error(`No field "${label}"`);
    return input;
  };
  const result = () => dialogElement().querySelector('[data-testid="try-result"]')?.textContent?.trim();

  async function pick(testid: string, option: string): Promise<string[]> {
    (dialogElement().querySelector(`[data-testid="${testid}"] .mat-mdc-select-trigger`) as HTMLElement).click();
    await turn();
    const options = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    const texts = options.map((o) => o.textContent?.trim() ?? '');
    options.find((o) => o.textContent?.trim() === option)?.click();
    await turn();
    return texts;
  }

  it('creates an HTTP check at a customer the account may write at', async () => {
    const ref = await open({});
    const closed = jasmine.createSpy('closed');
    ref.afterClosed().subscribe(closed);
    expect(dialogElement().querySelector('h2')?.textContent?.trim()).toBe('New check');

    typeInto(field('Name'), 'Shop front');
    typeInto(field('URL'), 'https://shop.example.com/health');
    typeInto(field('Keyword (optional)'), 'ok');
    buttonByText('Create check', dialogElement()).click();
    await turn();
    const create = await nextRequest(http, { method: 'POST', url: CHECKS_URL });

    const typed = checkBody({ settings: httpSettingsBody({ url: 'https://shop.example.com/health', keyword: 'ok' }) });
    expect(create.request.body).toEqual(checkCreateBody(typed));
    create.flush(checkBody());
    await turn();
    expect(closed).toHaveBeenCalledWith(checkBody());
  });

  it('asks for the fields of the chosen type before sending; a TCP check sends host and port', async () => {
    await open({});
    expect(await pick('customer', 'Acme')).toEqual(['Acme'], 'only the customers the operator writes at');
    typeInto(field('Name'), 'VPN');
    await pick('type', 'TCP port');
    buttonByText('Create check', dialogElement()).click();
    await turn();
    http.expectNone({ method: 'POST', url: CHECKS_URL });
    expect(dialogElement().textContent).toContain('Enter the host.');

    typeInto(field('Host'), 'vpn.acme.example');
    typeInto(field('Port'), '1194');
    buttonByText('Create check', dialogElement()).click();
    const create = await nextRequest(http, { method: 'POST', url: CHECKS_URL });
    expect(create.request.body.settings).toEqual({ type: 'tcp', host: 'vpn.acme.example', port: 1194 });
    create.flush(checkBody({ type: 'tcp' }));
  });

  it('"Try it now" runs the settings from the server and says what it measured, or why not', async () => {
    await open({});
    typeInto(field('URL'), 'https://shop.example.com/');
    typeInto(field('Keyword (optional)'), 'open');
    buttonByText('Try it now', dialogElement()).click();
    const tried = await nextRequest(http, { method: 'POST', url: CHECKS_TRY_URL });
    expect(tried.request.body).toEqual(
      jasmine.objectContaining({ customerId: 10, timeoutSeconds: 10, maxResponseMs: null }),
    );
    expect(tried.request.body.settings.url).toBe('https://shop.example.com/');
    tried.flush(checkResultBody({ keywordMatched: true }));
    await turn();
    expect(result()).toBe('Up: HTTP 200 · 48 ms · keyword as expected');

    buttonByText('Try it now', dialogElement()).click();
    (await nextRequest(http, { method: 'POST', url: CHECKS_TRY_URL })).flush(
      checkResultBody({
        up: false,
        reason: 'refused by policy: 10.0.0.1 is a private address',
        status: null,
        responseMs: null,
      }),
    );
    await turn();
    expect(result()).toBe('Down: refused by policy: 10.0.0.1 is a private address');

    buttonByText('Try it now', dialogElement()).click();
    (await nextRequest(http, { method: 'POST', url: CHECKS_TRY_URL })).flush(
      {
        error: 'settings.url: no user or password in the URL (use a secret header)',
        code: 'invalid',
        details: { field: 'settings.url' },
      },
      { status: 400, statusText: 'Bad Request' },
    );
    await turn();
    expect(result()).toBe('Not run: settings.url: no user or password in the URL (use a secret header)');
  });

  it('never shows a secret header back; left empty, it keeps the stored value', async () => {
    const stored = checkBody({
      settings: {
        ...httpSettingsBody(),
        headers: [
          { name: 'Authorization', value: null, secret: true },
          { name: 'X-Plain', value: 'visible', secret: false },
        ],
      },
    });
    await open({ check: stored });
    const values = Array.from(
      dialogElement().querySelectorAll<HTMLInputElement>('[data-testid="header"] input[formcontrolname="value"]'),
    );
    expect(values.map((v) => [v.value, v.type])).toEqual([
      ['', 'password'],
      ['visible', 'text'],
    ]);
    expect(dialogElement().textContent).toContain('Secret, never shown. Empty keeps it.');

    buttonByText('Save', dialogElement()).click();
    const patch = await nextRequest(http, { method: 'PATCH', url: checkUrl(7) });
    expect(patch.request.body.settings.headers).toEqual([
      { name: 'Authorization', secret: true },
      { name: 'X-Plain', value: 'visible', secret: false },
    ]);
    expect('customerId' in patch.request.body).toBeFalse();
    patch.flush(stored);
  });
});
