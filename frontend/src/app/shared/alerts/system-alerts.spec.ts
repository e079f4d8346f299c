import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { nextRequest, renderForTests, settle } from '@console/testing';
import { ALERTS_URL } from './alerts-api';
import { alertBody } from './alerts-testing';
import { HISTORY_SIZE, SystemAlerts } from './system-alerts';

describe('SystemAlerts', () => {
  let fixture: ComponentFixture<SystemAlerts>;
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function render(systemId: number): Promise<void> {
    ({ fixture, http } = renderForTests(SystemAlerts));
    fixture.componentRef.setInput('systemId', systemId);
    await settle(fixture);
  }

  it("lists a system's recent alerts, open and resolved, without repeating the system", async () => {
    await render(5);
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
    await render(6);
    (await nextRequest(http, (r) => r.url === ALERTS_URL)).flush([]);
    await settle(fixture);
    expect(fixture.nativeElement.querySelector('[data-testid="no-alerts"]')?.textContent).toContain('No alerts yet');
  });
});
