import { HttpTestingController } from '@angular/common/http/testing';

import { buttonByText, nextRequest, renderForTests, settle, typeInto } from '@console/testing';
import { CUSTOMERS_URL, CLUSTERS_URL } from '@console/shared/customers/customers-api';
import {
  SSO_LOCAL_SIGN_IN_URL,
  SSO_MAPPINGS_URL,
  SSO_SETTINGS_URL,
  SSO_TEST_START_URL,
  SSO_TEST_URL,
  SsoSettings,
  SsoTestResult,
} from './sso-api';
import { SsoPage } from './sso-page';

const SETTINGS: SsoSettings = {
  configured: true,
  source: 'environment',
  issuer: 'https://login.example.com',
  clientId: 'argus',
  scopes: ['openid', 'email', 'profile'],
  groupsClaim: 'groups',
  buttonName: 'Example',
  linkVerifiedEmail: false,
  createUsers: true,
  localSignInRestricted: false,
  mappingSource: 'console',
  callbackUrl: 'https://argus.example.com/api/auth/sso/callback',
  mappings: [{ group: 'argus-admins', role: 'ADMIN', customerIds: [] }],
};

describe('SsoPage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function render(settings: SsoSettings, test: SsoTestResult | null = null) {
    const { fixture, http: backend } = renderForTests(SsoPage);
    http = backend;
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([]);
    (await nextRequest(http, { method: 'GET', url: SSO_SETTINGS_URL })).flush(settings);
    if (settings.configured) (await nextRequest(http, { method: 'GET', url: SSO_TEST_URL })).flush({ result: test });
    await settle(fixture);
    return { fixture, page: fixture.nativeElement as HTMLElement };
  }

  it('shows the configuration read-only, without any secret, and the redirect URI to register', async () => {
    const { page } = await render(SETTINGS);
    const facts = page.querySelector('[data-testid="sso-config"]')?.textContent ?? '';
    expect(facts).toContain('https://login.example.com');
    expect(facts).toContain('https://argus.example.com/api/auth/sso/callback');
    expect(page.querySelectorAll('[data-testid="mapping"]').length).toBe(1);
  });

  it('adds a group and saves the whole mapping', async () => {
    const { fixture, page } = await render(SETTINGS);
    buttonByText('Add a group', page).click();
    await settle(fixture);
    const inputs = page.querySelectorAll<HTMLInputElement>('input[formcontrolname="group"]');
    typeInto(inputs[1] ?? null, ' acme-ops ');
    await settle(fixture);
    buttonByText('Save mapping', page).click();
    const put = await nextRequest(http, { method: 'PUT', url: SSO_MAPPINGS_URL });
    expect(put.request.body).toEqual({
      mappings: [
        { group: 'argus-admins', role: 'ADMIN', customerIds: [] },
        { group: 'acme-ops', role: 'VIEWER', customerIds: [] },
      ],
    });
    put.flush({ ...SETTINGS, mappings: put.request.body.mappings });
    await settle(fixture);
    expect(page.querySelectorAll('[data-testid="mapping"]').length).toBe(2);
  });

  it("shows the API's refusal of a mapping on the form's error line, and keeps the form", async () => {
    const { fixture, page } = await render(SETTINGS);
    page.querySelector<HTMLButtonElement>('button[aria-label="Remove the mapping of argus-admins"]')?.click();
    await settle(fixture);
    buttonByText('Save mapping', page).click();
    (await nextRequest(http, { method: 'PUT', url: SSO_MAPPINGS_URL })).flush(
      { error: 'This mapping would leave no administrator who can sign in', code: 'conflict' },
      { status: 409, statusText: 'Conflict' },
    );
    await settle(fixture);
    expect(page.querySelector('[role="alert"]')?.textContent).toContain('no administrator who can sign in');
    expect(buttonByText('Save mapping', page).disabled).toBeFalse();
  });

  it('restricts password sign-in to break-glass administrators, and turns the toggle back when refused', async () => {
    const { fixture, page } = await render(SETTINGS);
    const toggle = () => page.querySelector<HTMLButtonElement>('[data-testid="local-sign-in"] button');
    toggle()?.click();
    await settle(fixture);
    const put = await nextRequest(http, { method: 'PUT', url: SSO_LOCAL_SIGN_IN_URL });
    expect(put.request.body).toEqual({ restricted: true });
    put.flush({ ...SETTINGS, localSignInRestricted: true });
    await settle(fixture);
    expect(toggle()?.getAttribute('aria-checked')).toBe('true');

    toggle()?.click();
    await settle(fixture);
    (await nextRequest(http, { method: 'PUT', url: SSO_LOCAL_SIGN_IN_URL })).flush(
      { error: 'No enabled administrator with a password is marked break-glass', code: 'conflict' },
      { status: 409, statusText: 'Conflict' },
    );
    await settle(fixture);
    expect(toggle()?.getAttribute('aria-checked')).toBe('true');
    expect(page.querySelector('[role="alert"]')?.textContent).toContain('break-glass');
  });

  it('shows the mapping of OIDC_GROUP_MAP without a way to change it', async () => {
    const { page } = await render({ ...SETTINGS, mappingSource: 'environment' });
    expect(page.querySelector('[data-testid="mapping-fixed"]')?.textContent).toContain('OIDC_GROUP_MAP');
    expect(page.querySelector<HTMLInputElement>('input[formcontrolname="group"]')?.disabled).toBeTrue();
    expect(page.querySelector('button[aria-label^="Remove the mapping"]')).toBeNull();
    expect(page.querySelector<HTMLElement>('.form-actions')?.hidden).toBeTrue();
  });

  it('offers a test sign-in, and shows the claims of the latest one with what the mapping makes of them', async () => {
    const { page } = await render(SETTINGS, {
      at: '2026-11-28T18:00:00.000Z',
      claims: { sub: 'olga', email: 'olga@example.com', groups: ['argus-admins'] },
      groups: ['argus-admins'],
      role: 'ADMIN',
      customerIds: [],
      refused: null,
    });
    expect(page.querySelector('a[href="' + SSO_TEST_START_URL + '"]')?.textContent).toContain('Test sign-in');
    const result = page.querySelector('[data-testid="sso-test-result"]')?.textContent ?? '';
    expect(result).toContain('Would sign in as Admin');
    expect(result).toContain('olga@example.com');
    expect(result).toContain('Groups: argus-admins');
  });

  it('says why the tested person would be refused', async () => {
    const { page } = await render(SETTINGS, {
      at: '2026-11-28T18:00:00.000Z',
      claims: { sub: 'mallory' },
      groups: [],
      role: null,
      customerIds: [],
      refused: 'You are not in the group "argus-admins", which Argus needs',
    });
    expect(page.querySelector('[data-testid="sso-test-result"] [role="alert"]')?.textContent).toContain(
      'Would be refused: You are not in the group',
    );
  });

  it('says how to turn it on when the variables are not set', async () => {
    const { page } = await render({ ...SETTINGS, configured: false, issuer: null, mappings: [] });
    expect(page.querySelector('[data-testid="sso-off"]')?.textContent).toContain('OIDC_ISSUER_URL');
    expect(page.querySelector('[data-testid="no-mapping"]')).not.toBeNull();
  });
});
