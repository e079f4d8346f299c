import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Title } from '@angular/platform-browser';
import { Router, TitleStrategy } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';

import { routes } from './app.routes';
import { ApiPage } from './features/api/api-page';
import { AUTH_URLS, User } from './core/auth';
import { userBody } from './core/auth-testing';
import { ArgusTitleStrategy } from './core/title-strategy';
import { LoginPage } from './features/auth/login-page';
import { NotFoundPage } from './features/not-found/not-found-page';
import { AuditLogPage } from './features/settings/audit-log-page';
import { ChannelsPage } from './features/settings/channels-page';
import { RoutingPage } from './features/settings/routing-page';
import { SmtpPage } from './features/settings/smtp-page';
import { CustomersPage } from './features/customers/customers-page';
import { OverviewPage } from './features/overview/overview-page';
import { StatusPage } from './features/status/status-page';
import { SystemPage } from './features/systems/system-page';
import { systemUrl } from './shared/systems/systems-api';
import { SystemListPage } from './features/systems/system-list-page';
import { systemDetailBody } from './shared/systems/systems-testing';
import { nextRequest, provideForTests } from './testing';

describe('routes', () => {
  let http: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [...provideForTests(routes), { provide: TitleStrategy, useClass: ArgusTitleStrategy }],
    });
    http = TestBed.inject(HttpTestingController);
  });

  async function signedInAs(user: User): Promise<void> {
    (await nextRequest(http, AUTH_URLS.me)).flush({ user });
    (await nextRequest(http, AUTH_URLS.csrf)).flush({ csrfToken: 't' });
  }

  it('opens the overview at the root, and Argus health at /status', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/');
    await signedInAs(userBody());

    expect(await page).toBeInstanceOf(OverviewPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Overview · Argus');
    expect(await harness.navigateByUrl('/status')).toBeInstanceOf(StatusPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Argus health · Argus');
  });

  it('opens the fleet pages for every role', async () => {
    const harness = await RouterTestingHarness.create();
    const systems = harness.navigateByUrl('/systems');
    await signedInAs(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(await systems).toBeInstanceOf(SystemListPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Systems · Argus');
    expect(await harness.navigateByUrl('/customers')).toBeInstanceOf(CustomersPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Customers · Argus');
  });

  it('opens the API reference for every role, a viewer too', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/reference/api');
    await signedInAs(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(await page).toBeInstanceOf(ApiPage);
    expect(TestBed.inject(Title).getTitle()).toBe('API · Argus');
  });

  it("opens a system's page and names the system in the browser tab", async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/systems/7');
    await signedInAs(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(await page).toBeInstanceOf(SystemPage);
    (await nextRequest(http, systemUrl(7))).flush(systemDetailBody({ id: 7, name: 'db-07' }));
    harness.detectChanges();
    await harness.fixture.whenStable();

    expect(TestBed.inject(Title).getTitle()).toBe('db-07 · Argus');
    (await nextRequest(http, `${systemUrl(7)}/series`)).flush([]);
  });

  it('shows the not-found page for an unknown address', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/no/such/page');
    await signedInAs(userBody());

    expect(await page).toBeInstanceOf(NotFoundPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Page not found · Argus');
  });

  it('asks a signed-out visitor to sign in first', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/');
    (await nextRequest(http, AUTH_URLS.me)).flush(
      { error: 'Unauthorized' },
      { status: 401, statusText: 'Unauthorized' },
    );
    (await nextRequest(http, AUTH_URLS.options)).flush({ setupNeeded: false, mailEnabled: false });

    expect(await page).toBeInstanceOf(LoginPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Sign in · Argus');
  });

  it('opens the mail settings under /settings for an administrator', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/settings');
    await signedInAs(userBody({ role: 'ADMIN' }));

    expect(await page).toBeInstanceOf(SmtpPage);
    expect(TestBed.inject(Router).url).toBe('/settings/mail');
  });

  it('opens the notification channels and routing for an operator', async () => {
    const harness = await RouterTestingHarness.create();
    const channels = harness.navigateByUrl('/settings/channels');
    await signedInAs(userBody({ role: 'OPERATOR', customerIds: [10] }));

    expect(await channels).toBeInstanceOf(ChannelsPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Notification channels · Argus');
    expect(await harness.navigateByUrl('/settings/routing')).toBeInstanceOf(RoutingPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Notification routing · Argus');
    expect(await harness.navigateByUrl('/settings/audit-log')).toBeInstanceOf(AuditLogPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Audit log · Argus');
  });

  it('keeps a viewer out of the audit log', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/settings/audit-log');
    await signedInAs(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(await page).toBeInstanceOf(OverviewPage);
    expect(TestBed.inject(Router).url).toBe('/');
  });

  it('keeps a viewer out of the notification settings', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/settings/channels');
    await signedInAs(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(await page).toBeInstanceOf(OverviewPage);
    expect(TestBed.inject(Router).url).toBe('/');
  });

  it('keeps other roles out of the user administration', async () => {
    const harness = await RouterTestingHarness.create();
    const page = harness.navigateByUrl('/users');
    await signedInAs(userBody({ role: 'VIEWER' }));

    expect(await page).toBeInstanceOf(OverviewPage);
    expect(TestBed.inject(Router).url).toBe('/');
  });
});
