import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { nextRequest, provideForTests, settle } from '@console/testing';
import { ALERTS_URL } from './alerts-api';
import { alertBody } from './alerts-testing';
import { HISTORY_SIZE, SystemAlerts } from './system-alerts';

describe('SystemAlerts', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  it("lists a system's recent alerts, open and resolved, without repeating the system", async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(SystemAlerts);
    fixture.componentRef.setInput('systemId', 5);
    await settle(fixture);
    const request = await nextRequest(http, (r) => r.url === ALERTS_URL);
    expect(request.request.params.get('system')).toBe('5');
    expect(request.request.params.get('limit')).toBe(String(HISTORY_SIZE));
    expect(request.request.params.has('state')).toBeFalse();
    request.flush([
      alertBody({ id: 2 }),
      alertBody({ id: 1, state: 'resolved', resolvedAt: new Date().toISOString() }),
    ]);
    await settle(fixture);

    const items = fixture.nativeElement.querySelectorAll('[data-testid="history-alert"]');
    expect(items.length).toBe(2);
    expect(fixture.nativeElement.querySelector('[data-testid="system-link"]')).toBeNull();
  });

  it('says when a system has had no alerts', async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(SystemAlerts);
    fixture.componentRef.setInput('systemId', 6);
    await settle(fixture);
    (await nextRequest(http, (r) => r.url === ALERTS_URL)).flush([]);
    await settle(fixture);
    expect(fixture.nativeElement.querySelector('[data-testid="no-alerts"]')?.textContent).toContain('No alerts yet');
  });
});
