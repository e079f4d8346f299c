import { HttpErrorResponse, provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { firstValueFrom } from 'rxjs';

import { HEALTH_URL, HealthService } from './health';
import { healthBody } from './health-testing';

describe('HealthService', () => {
  let service: HealthService;
  let http: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    service = TestBed.inject(HealthService);
    http = TestBed.inject(HttpTestingController);
  });

  afterEach(() => http?.verify());

  it('emits the report of a healthy backend', async () => {
    const result = firstValueFrom(service.health$);
    http.expectOne({ method: 'GET', url: HEALTH_URL }).flush(healthBody());

    expect(await result).toEqual(healthBody());
  });

  it('treats the body of a 503 as a degraded report, not as an error', async () => {
    const degraded = healthBody({ status: 'degraded', services: { database: 'ok', redis: 'error' } });
    const result = firstValueFrom(service.health$);
    http.expectOne(HEALTH_URL).flush(degraded, { status: 503, statusText: 'Service Unavailable' });

    expect(await result).toEqual(degraded);
  });

  it('fails when the API cannot be reached', async () => {
    const result = firstValueFrom(service.health$);
    http.expectOne(HEALTH_URL).error(new ProgressEvent('error'));

    await expectAsync(result).toBeRejectedWith(jasmine.any(HttpErrorResponse));
  });

  it("fails on a 503 that is not a health report (a proxy's error page)", async () => {
    const result = firstValueFrom(service.health$);
    http.expectOne(HEALTH_URL).flush('<h1>503 Service Unavailable</h1>', { status: 503, statusText: 'Unavailable' });

    await expectAsync(result).toBeRejectedWith(jasmine.any(HttpErrorResponse));
  });

  it('asks the backend again on every subscription', () => {
    service.health$.subscribe();
    service.health$.subscribe();

    const requests = http.match(HEALTH_URL);
    expect(requests.length).toBe(2);
    requests.forEach((request) => request.flush(healthBody()));
  });
});
