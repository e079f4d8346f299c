import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { RouterTestingHarness } from '@angular/router/testing';

import { AuthService } from '../../core/auth';
import { userBody } from '../../core/auth-testing';
import { nextRequest, provideForTests } from '../../testing';
import { AlertPage } from './alert-page';
import { ALERTS_URL } from '../../shared/alerts/alerts-api';
import { alertBody } from '../../shared/alerts/alerts-testing';

describe('AlertPage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  it('shows the alert of the e-mail link /alerts/:id with its system and state', async () => {
    TestBed.configureTestingModule({ providers: provideForTests([{ path: 'alerts/:id', component: AlertPage }]) });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody({ role: 'VIEWER', customerIds: [10] }));
    const harness = await RouterTestingHarness.create();
    const navigation = harness.navigateByUrl('/alerts/42');
    (await nextRequest(http, { method: 'GET', url: `${ALERTS_URL}/42` })).flush(
      alertBody({
        id: 42,
        acknowledged: true,
        acknowledgedAt: new Date().toISOString(),
        acknowledgedBy: { id: 2, name: 'Grace' },
      }),
    );
    await navigation;
    harness.detectChanges();
    await harness.fixture.whenStable();
    const page: HTMLElement = harness.routeNativeElement!;

    expect(page.querySelector('h1')?.textContent).toContain('cpu.high');
    expect(page.querySelector('[data-testid="state"]')?.textContent).toContain('Open, acknowledged');
    expect(page.querySelector('a[href="/systems/5"]')?.textContent).toContain('web-01');
    expect(page.textContent).toContain('acknowledged by Grace');
    expect(page.querySelectorAll('button').length).toBe(0);
  });
});
