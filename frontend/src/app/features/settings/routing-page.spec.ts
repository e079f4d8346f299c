import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import {
  buttonByText,
  chooseOption,
  nextRequest,
  openSelect as openTestSelect,
  overlayText,
  renderForTests,
  settle,
  typeInto,
} from '@console/testing';
import {
  CHANNELS_URL,
  customerPolicyUrl,
  GLOBAL_POLICY_URL,
  Policy,
  POLICIES_URL,
} from '@console/shared/notifications/notifications-api';
import { channelBody, policyBody } from '@console/shared/notifications/notifications-testing';
import { answerFleet } from '@console/shared/customers/customers-testing';
import { RoutingPage } from './routing-page';

const channels = [
  channelBody(),
  channelBody({ id: 4, name: 'Pager', type: 'webhook', enabled: false }),
  channelBody({ id: 2, name: 'Acme on-call', type: 'email', customerId: 10, customerName: 'Acme' }),
  channelBody({ id: 3, name: 'Globex hook', type: 'webhook', customerId: 20, customerName: 'Globex' }),
];
const acmeOwn = policyBody({
  customerId: 10,
  customerName: 'Acme',
  routes: [{ minSeverity: 'WARNING', channelIds: [2] }],
  repeatMinutes: 60,
});

describe('RoutingPage', () => {
  let fixture: ComponentFixture<RoutingPage>;
  let http: HttpTestingController;

  async function render(user: User, policies: Policy[] = [policyBody()]): Promise<void> {
    ({ fixture, http } = renderForTests(RoutingPage, user));
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: POLICIES_URL })).flush(policies);
    (await nextRequest(http, { method: 'GET', url: CHANNELS_URL })).flush(channels);
    await answerFleet(http);
    await settle(fixture);
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const section = (title: string) =>
    Array.from(page().querySelectorAll<HTMLElement>('section')).find(
      (s) => s.querySelector('h2')?.textContent === title,
    )!;

  const openSelect = (root: HTMLElement, testid: string) => openTestSelect(fixture, root, testid);

  async function choose(...labels: string[]): Promise<void> {
    for (const label of labels) await chooseOption(fixture, label);
    document.querySelector<HTMLElement>('.cdk-overlay-transparent-backdrop')?.click();
    await settle(fixture);
  }

  async function pickCustomer(name: string, policy: Policy): Promise<void> {
    await openSelect(section('Customer policy'), 'customer');
    await choose(name);
    (await nextRequest(http, { method: 'GET', url: customerPolicyUrl(policy.customerId!) })).flush(policy);
    await settle(fixture);
  }

  it('lets an administrator edit the global policy with global channels only', async () => {
    await render(userBody());
    const global = section('Global policy');
    expect(global.querySelectorAll('[data-testid="route"]').length).toBe(1);

    buttonByText('Add route', global).click();
    await settle(fixture);
    const routes = global.querySelectorAll<HTMLElement>('[data-testid="route"]');
    await openSelect(routes[1], 'route-severity');
    await choose('Critical');
    expect(await openSelect(routes[1], 'route-channels')).toEqual(['Ops Slack', 'Pager (disabled)']);
    await choose('Pager (disabled)');
    typeInto(global.querySelector('input[formcontrolname="repeatMinutes"]'), '30');
    await settle(fixture);
    buttonByText('Save policy', global).click();

    const put = await nextRequest(http, { method: 'PUT', url: GLOBAL_POLICY_URL });
    expect(put.request.body).toEqual({
      routes: [
        { minSeverity: 'INFO', channelIds: [1] },
        { minSeverity: 'CRITICAL', channelIds: [4] },
      ],
      repeatMinutes: 30,
      escalateAfterMinutes: null,
      escalateChannelIds: [],
    });
    put.flush(policyBody());
    (await nextRequest(http, { method: 'GET', url: POLICIES_URL })).flush([policyBody()]);
    await settle(fixture);
    expect(overlayText()).toContain('Global policy saved');
  });

  it('shows the global policy read-only to an operator', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));
    const global = section('Global policy');

    expect(global.querySelector('[data-testid="global-read-only"]')).not.toBeNull();
    expect(global.querySelector('[data-testid="policy-summary"]')?.textContent).toContain('Info and up → Ops Slack');
    expect(global.querySelectorAll('button, input, mat-select').length).toBe(0);
  });

  it("gives a customer that follows the global policy its own, with the customer's channels", async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));
    expect(await openSelect(section('Customer policy'), 'customer')).toEqual(['Acme', 'Globex']);
    await choose('Acme');
    (await nextRequest(http, { method: 'GET', url: customerPolicyUrl(10) })).flush(
      policyBody({ customerId: 10, customerName: 'Acme', custom: false, updatedAt: null }),
    );
    await settle(fixture);
    const own = section('Customer policy');
    expect(own.querySelector('[data-testid="policy-kind"]')?.textContent).toContain('Acme follows the global policy.');
    expect(() => buttonByText('Use the global policy', own)).toThrow();

    const route = own.querySelector<HTMLElement>('[data-testid="route"]')!;
    expect(await openSelect(route, 'route-channels')).toEqual([
      'Ops Slack (all customers)',
      'Pager (all customers, disabled)',
      'Acme on-call',
    ]);
    await choose('Acme on-call');
    typeInto(own.querySelector('input[formcontrolname="escalateAfterMinutes"]'), '15');
    await settle(fixture);
    buttonByText('Save policy', own).click();
    await settle(fixture);
    expect(http.match({ method: 'PUT' }).length)
      .withContext('escalation needs channels')
      .toBe(0);
    await openSelect(own, 'escalate-channels');
    await choose('Ops Slack (all customers)');
    buttonByText('Save policy', own).click();

    const put = await nextRequest(http, { method: 'PUT', url: customerPolicyUrl(10) });
    expect(put.request.body).toEqual({
      routes: [{ minSeverity: 'INFO', channelIds: [1, 2] }],
      repeatMinutes: null,
      escalateAfterMinutes: 15,
      escalateChannelIds: [1],
    });
    put.flush(acmeOwn);
    (await nextRequest(http, { method: 'GET', url: POLICIES_URL })).flush([policyBody(), acmeOwn]);
    (await nextRequest(http, { method: 'GET', url: customerPolicyUrl(10) })).flush(acmeOwn);
    await settle(fixture);
    expect(own.querySelector('[data-testid="policy-kind"]')?.textContent).toContain('Acme has its own policy.');
  });

  it('puts a customer back on the global policy after confirmation', async () => {
    await render(userBody(), [policyBody(), acmeOwn]);
    expect(await openSelect(section('Customer policy'), 'customer')).toEqual(['Acme (own policy)', 'Globex']);
    await choose('Acme (own policy)');
    (await nextRequest(http, { method: 'GET', url: customerPolicyUrl(10) })).flush(acmeOwn);
    await settle(fixture);

    buttonByText('Use the global policy', section('Customer policy')).click();
    await settle(fixture);
    buttonByText('Use the global policy', document.querySelector('mat-dialog-container')!).click();
    (await nextRequest(http, { method: 'DELETE', url: customerPolicyUrl(10) })).flush(null, {
      status: 204,
      statusText: 'No Content',
    });
    (await nextRequest(http, { method: 'GET', url: POLICIES_URL })).flush([policyBody()]);
    (await nextRequest(http, { method: 'GET', url: customerPolicyUrl(10) })).flush({ ...acmeOwn, custom: false });
    await settle(fixture);
    expect(overlayText()).toContain('Acme follows the global policy');
    expect(section('Customer policy').querySelector('[data-testid="policy-kind"]')?.textContent).toContain(
      'follows the global policy',
    );
  });

  it("shows a customer's policy read-only to an operator not granted it", async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));
    await pickCustomer('Globex', policyBody({ customerId: 20, customerName: 'Globex', custom: false }));

    expect(section('Customer policy').querySelector('[data-testid="policy-summary"]')).not.toBeNull();
    expect(() => buttonByText('Save policy', section('Customer policy'))).toThrow();
  });

  it("shows the server's refusal under the field it names, or above the buttons", async () => {
    await render(userBody());
    await pickCustomer('Acme', acmeOwn);
    const own = section('Customer policy');

    buttonByText('Save policy', own).click();
    (await nextRequest(http, { method: 'PUT', url: customerPolicyUrl(10) })).flush(
      { error: 'Forbidden', code: 'forbidden' },
      { status: 403, statusText: 'Forbidden' },
    );
    await settle(fixture);
    expect(own.querySelector('[role="alert"]')?.textContent).toContain('Forbidden');

    buttonByText('Save policy', own).click();
    (await nextRequest(http, { method: 'PUT', url: customerPolicyUrl(10) })).flush(
      {
        error: 'routes.0.channelIds: channel 3 belongs to another customer',
        code: 'bad_request',
        details: { field: 'routes.0.channelIds' },
      },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(own.querySelector('mat-error')?.textContent).toContain('Channel 3 belongs to another customer');
  });
});
