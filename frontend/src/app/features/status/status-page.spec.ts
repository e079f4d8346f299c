import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { HEALTH_URL } from '@console/core/health';
import { healthBody } from '@console/core/health-testing';
import { POLL_INTERVAL_MS, StatusPage } from './status-page';

describe('StatusPage', () => {
  let fixture: ComponentFixture<StatusPage>;
  let http: HttpTestingController;

  // The page polls with an RxJS timer; jasmine's clock drives it without waiting for real time.
  beforeEach(() => {
    jasmine.clock().install();
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    http = TestBed.inject(HttpTestingController);
    fixture = TestBed.createComponent(StatusPage);
    fixture.detectChanges();
  });

  afterEach(() => {
    fixture.destroy();
    jasmine.clock().uninstall();
    http.verify();
  });

  function answerNextCheck(respond: (request: ReturnType<HttpTestingController['expectOne']>) => void): void {
    jasmine.clock().tick(0);
    respond(http.expectOne(HEALTH_URL));
    fixture.detectChanges();
  }

  const page = (): HTMLElement => fixture.nativeElement;
  const badge = (service: string) => page().querySelector(`[data-service="${service}"] .badge`)?.textContent?.trim();

  it('shows progress until the first check answers', () => {
    expect(page().querySelector('mat-progress-bar')).not.toBeNull();

    answerNextCheck((request) => request.flush(healthBody()));

    expect(page().querySelector('mat-progress-bar')).toBeNull();
  });

  it('shows a badge per service with the state the backend reported', () => {
    const degraded = healthBody({ status: 'degraded', services: { database: 'ok', redis: 'error' } });
    answerNextCheck((request) => request.flush(degraded, { status: 503, statusText: 'Service Unavailable' }));

    expect(badge('Database')).toBe('OK');
    expect(badge('Redis')).toBe('Error');
    expect(page().querySelector('[data-testid="overall"]')?.textContent).toContain('Argus services: degraded');
    expect(page().querySelector('[data-testid="unreachable"]')).toBeNull();
  });

  it('says all services are operational when the backend is healthy', () => {
    answerNextCheck((request) => request.flush(healthBody()));

    expect(badge('Database')).toBe('OK');
    expect(badge('Redis')).toBe('OK');
    expect(page().querySelector('[data-testid="overall"]')?.textContent).toContain('Argus services: all operational');
    expect(page().querySelector('h1')?.textContent).toBe('Argus health');
  });

  it('shows a component the instance runs without as not used, not OK', () => {
    answerNextCheck((request) => request.flush(healthBody({ notUsed: ['redis'] })));

    expect(badge('Database')).toBe('OK');
    expect(badge('Redis')).toBe('Not used');
    expect(page().querySelector('[data-service="Redis"] .badge')?.classList).not.toContain('badge--ok');
  });

  it('tells the user when the API is unreachable instead of showing stale badges', () => {
    answerNextCheck((request) => request.error(new ProgressEvent('error')));

    const alert = page().querySelector('[role="alert"]');
    expect(alert?.textContent).toContain('The Argus API is unreachable');
    expect(page().querySelectorAll('[data-service]').length).toBe(0);
  });

  it('checks again every 10 seconds and recovers after an outage', () => {
    answerNextCheck((request) => request.error(new ProgressEvent('error')));

    jasmine.clock().tick(POLL_INTERVAL_MS - 1);
    http.expectNone(HEALTH_URL);

    jasmine.clock().tick(1);
    http.expectOne(HEALTH_URL).flush(healthBody());
    fixture.detectChanges();

    expect(page().querySelector('[data-testid="unreachable"]')).toBeNull();
    expect(badge('Redis')).toBe('OK');
  });

  it('says when alert evaluation fails, for how many customers and since when every customer was evaluated', () => {
    const failing = healthBody({
      evaluation: { lastRunAt: '2026-11-21T10:00:00.000Z', failedCustomers: 2, lastCompleteAt: null },
    });
    answerNextCheck((request) => request.flush(failing));

    const banner = page().querySelector('[data-testid="evaluation"]')?.textContent ?? '';
    expect(banner).toContain('Alert evaluation is failing');
    expect(banner).toContain('for 2 customers');
    expect(banner).toContain('No run has evaluated every customer yet.');
  });

  it('shows no evaluation banner while runs succeed', () => {
    answerNextCheck((request) => request.flush(healthBody()));

    expect(page().querySelector('[data-testid="evaluation"]')).toBeNull();
  });
});
