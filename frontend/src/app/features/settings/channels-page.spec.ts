import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import {
  buttonByText,
  nextRequest,
  openSelect,
  overlayText,
  pickOption,
  renderAnsweredForTests,
  settle,
  typeInto,
} from '@console/testing';
import { Channel, CHANNELS_URL } from '@console/shared/notifications/notifications-api';
import { channelBody } from '@console/shared/notifications/notifications-testing';
import { answerFleet, twoCustomers } from '@console/shared/customers/customers-testing';
import { ChannelsPage } from './channels-page';

const acmeMail = channelBody({
  id: 2,
  name: 'Acme on-call',
  type: 'email',
  customerId: 10,
  customerName: 'Acme',
  target: 'oncall@acme.example, boss@acme.example',
  targetHint: 'oncall@acme.example, boss@acme.example',
  minSeverity: 'WARNING',
});
const hook = channelBody({
  id: 3,
  name: 'Acme hook',
  type: 'webhook',
  customerId: 10,
  customerName: 'Acme',
  targetHint: 'https://hooks.acme.example/…',
  hasSecret: true,
  enabled: false,
});

describe('ChannelsPage', () => {
  let fixture: ComponentFixture<ChannelsPage>;
  let http: HttpTestingController;

  async function render(user: User, channels: Channel[]): Promise<void> {
    ({ fixture, http } = await renderAnsweredForTests(ChannelsPage, user, CHANNELS_URL, channels));
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const rows = () => Array.from(page().querySelectorAll<HTMLElement>('[data-testid="channel"]'));
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;
  const button = (label: string) => page().querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`);

  /** Opens the dialog and answers its customer list. */
  async function openDialog(label: string, customers = twoCustomers()): Promise<void> {
    (label === 'New channel' ? buttonByText(label, page()) : button(label)!).click();
    await settle(fixture);
    await answerFleet(http, customers);
    await settle(fixture);
  }

  const pick = (testid: string, option: string) => pickOption(fixture, dialog(), testid, option);

  const options = async (testid: string): Promise<string[]> => {
    const texts = await openSelect(fixture, dialog(), testid);
    document.querySelector<HTMLElement>('.cdk-overlay-transparent-backdrop')?.click();
    await settle(fixture);
    return texts;
  };

  it('lists channels with customer, target or its hint, minimum severity, state and secret', async () => {
    await render(userBody(), [channelBody(), acmeMail, hook]);

    expect(rows().length).toBe(3);
    expect(rows()[0].querySelector('[data-testid="customer"]')?.textContent).toContain('All customers');
    expect(rows()[0].querySelector('[data-testid="target"]')?.textContent).toContain('https://hooks.slack.com/…');
    expect(rows()[1].querySelector('[data-testid="target"]')?.textContent).toContain('oncall@acme.example');
    expect(rows()[1].textContent).toContain('Warning and up');
    expect(rows()[2].querySelector('[data-testid="enabled"]')?.textContent).toContain('Disabled');
    expect(rows()[2].querySelector('[data-testid="secret"]')?.textContent).toContain('Set');
    expect(button('Send test to Ops Slack')).not.toBeNull();
  });

  it("lets an operator manage its customer's channels but only read the global ones", async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), [channelBody(), acmeMail]);

    expect(button('Edit Ops Slack')).toBeNull();
    expect(button('Delete Ops Slack')).toBeNull();
    expect(button('Send test to Ops Slack')).toBeNull();
    expect(button('Edit Acme on-call')).not.toBeNull();
    expect(button('Send test to Acme on-call')).not.toBeNull();

    await openDialog('New channel');
    expect(await options('customer'))
      .withContext('"All customers" is for administrators; only granted customers')
      .toEqual(['Acme']);
    buttonByText('Cancel', dialog()).click();
    await settle(fixture);
  });

  it('creates a global webhook channel with a signing secret', async () => {
    await render(userBody(), []);
    expect(page().querySelector('[data-testid="empty"]')).not.toBeNull();

    await openDialog('New channel');
    expect(dialog().querySelector('[data-testid="customer"] .mat-mdc-select-value')?.textContent?.trim()).toBe(
      'All customers',
    );
    expect(await options('customer')).toEqual(['All customers', 'Acme', 'Globex']);
    typeInto(dialog().querySelector('input[name="name"]'), 'Pager');
    typeInto(dialog().querySelector('input[formcontrolname="target"]'), 'https://pager.example/hook');
    typeInto(dialog().querySelector('input[formcontrolname="secret"]'), 's3cret');
    await pick('min-severity', 'Critical');
    buttonByText('Create channel', dialog()).click();

    const post = await nextRequest(http, { method: 'POST', url: CHANNELS_URL });
    expect(post.request.body).toEqual({
      name: 'Pager',
      type: 'webhook',
      target: 'https://pager.example/hook',
      minSeverity: 'CRITICAL',
      enabled: true,
      customerId: null,
      secret: 's3cret',
    });
    const created = channelBody({ id: 9, name: 'Pager', type: 'webhook', hasSecret: true });
    post.flush(created);
    (await nextRequest(http, { method: 'GET', url: CHANNELS_URL })).flush([created]);
    await settle(fixture);
    expect(rows()[0].textContent).toContain('Pager');
    expect(overlayText()).toContain('Channel created');
  });

  it('explains e-mail targets and shows the field the server refuses', async () => {
    await render(userBody(), []);
    await openDialog('New channel');
    await pick('type', 'E-mail');
    expect(dialog().querySelector('[data-testid="target-hint"]')?.textContent).toContain('"accounts"');
    expect(dialog().querySelector('input[formcontrolname="secret"]')).withContext('no signing for e-mail').toBeNull();
    typeInto(dialog().querySelector('input[name="name"]'), 'Team');
    typeInto(dialog().querySelector('input[formcontrolname="target"]'), 'team@example, nope');
    await pick('customer', 'Acme');
    buttonByText('Create channel', dialog()).click();

    const post = await nextRequest(http, { method: 'POST', url: CHANNELS_URL });
    expect(post.request.body).toEqual(jasmine.objectContaining({ type: 'email', customerId: 10 }));
    post.flush(
      { error: 'target: "nope" is not an e-mail address', code: 'bad_request', details: { field: 'target' } },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(dialog().querySelector('mat-error')?.textContent).toContain('"nope" is not an e-mail address');
  });

  it('edits a webhook: an empty URL keeps the sealed one, and the secret can be removed', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), [hook]);
    await openDialog('Edit Acme hook');

    const target = dialog().querySelector('input[formcontrolname="target"]') as HTMLInputElement;
    expect(target.value).toBe('');
    expect(dialog().querySelector('[data-testid="target-hint"]')?.textContent).toContain(
      'Now https://hooks.acme.example/…. Leave empty to keep it.',
    );
    expect(await options('secret-mode')).toEqual(['Keep the current secret', 'Replace it', 'Remove it']);
    await pick('secret-mode', 'Remove it');
    (dialog().querySelector('mat-slide-toggle button') as HTMLElement).click();
    await settle(fixture);
    buttonByText('Save', dialog()).click();

    const patch = await nextRequest(http, { method: 'PATCH', url: `${CHANNELS_URL}/3` });
    expect(patch.request.body).toEqual({ name: 'Acme hook', minSeverity: 'INFO', enabled: true, secret: null });
    patch.flush({ ...hook, hasSecret: false, enabled: true });
    (await nextRequest(http, { method: 'GET', url: CHANNELS_URL })).flush([{ ...hook, hasSecret: false }]);
    await settle(fixture);
  });

  it('replaces the URL and the secret of a webhook', async () => {
    await render(userBody(), [hook]);
    await openDialog('Edit Acme hook');
    typeInto(dialog().querySelector('input[formcontrolname="target"]'), 'https://new.example/hook');
    await pick('secret-mode', 'Replace it');
    buttonByText('Save', dialog()).click();
    await settle(fixture);
    expect(http.match({ method: 'PATCH' }).length)
      .withContext('a new secret is required')
      .toBe(0);
    typeInto(dialog().querySelector('input[formcontrolname="secret"]'), 'n3w');
    buttonByText('Save', dialog()).click();

    const patch = await nextRequest(http, { method: 'PATCH', url: `${CHANNELS_URL}/3` });
    expect(patch.request.body).toEqual(
      jasmine.objectContaining({ target: 'https://new.example/hook', secret: 'n3w', enabled: false }),
    );
    patch.flush(hook);
    (await nextRequest(http, { method: 'GET', url: CHANNELS_URL })).flush([hook]);
  });

  it('sends a test and says its outcome and status, or why the policy refused it', async () => {
    await render(userBody(), [channelBody(), hook]);
    const status = () => page().querySelector('[role="status"][data-testid="test-result"]')?.textContent?.trim();

    button('Send test to Ops Slack')!.click();
    await settle(fixture);
    expect(status()).toContain('Sending a test to Ops Slack');
    (await nextRequest(http, { method: 'POST', url: `${CHANNELS_URL}/1/test` })).flush({
      ok: true,
      outcome: 'delivered',
      status: 200,
    });
    await settle(fixture);
    expect(status()).toBe('Test to Ops Slack: delivered (HTTP 200).');

    button('Send test to Acme hook')!.click();
    (await nextRequest(http, { method: 'POST', url: `${CHANNELS_URL}/3/test` })).flush({
      ok: false,
      outcome: 'failed: rejected',
      status: 500,
    });
    await settle(fixture);
    expect(status()).toBe('Test to Acme hook: failed: rejected (HTTP 500).');

    button('Send test to Acme hook')!.click();
    (await nextRequest(http, { method: 'POST', url: `${CHANNELS_URL}/3/test` })).flush({
      ok: false,
      outcome: 'refused by policy',
      status: null,
    });
    await settle(fixture);
    expect(status()).toMatch(/^Test to Acme hook: refused by policy: .*ARGUS_ALLOW_PRIVATE_WEBHOOKS/);

    button('Send test to Acme hook')!.click();
    (await nextRequest(http, { method: 'POST', url: `${CHANNELS_URL}/3/test` })).flush(
      { error: 'Channel is disabled', code: 'bad_request' },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(status()).toBe('Test to Acme hook failed: Channel is disabled');
  });

  it('deletes a channel after confirmation and shows a refusal', async () => {
    await render(userBody(), [channelBody(), acmeMail]);

    button('Delete Acme on-call')!.click();
    await settle(fixture);
    expect(overlayText()).toContain('Delete Acme on-call?');
    buttonByText('Delete', document.querySelector('mat-dialog-container')!).click();
    const del = await nextRequest(http, { method: 'DELETE', url: `${CHANNELS_URL}/2` });
    del.flush(null, { status: 204, statusText: 'No Content' });
    (await nextRequest(http, { method: 'GET', url: CHANNELS_URL })).flush([channelBody()]);
    await settle(fixture);
    expect(rows().length).toBe(1);

    button('Delete Ops Slack')!.click();
    await settle(fixture);
    buttonByText('Delete', document.querySelector('mat-dialog-container')!).click();
    (await nextRequest(http, { method: 'DELETE', url: `${CHANNELS_URL}/1` })).flush(
      { error: 'Not found', code: 'not_found' },
      { status: 404, statusText: 'Not Found' },
    );
    await settle(fixture);
    expect(overlayText()).toContain('Not found');
  });
});
