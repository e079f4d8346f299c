import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { provideForTests } from '@console/testing';
import { AUTH_URLS, AuthService } from './auth';
import { userBody } from './auth-testing';
import { CSRF_HEADER } from './csrf-interceptor';

describe('csrfInterceptor', () => {
  let http: HttpTestingController;
  let client: HttpClient;
  let auth: AuthService;

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    client = TestBed.inject(HttpClient);
    auth = TestBed.inject(AuthService);
  });

  afterEach(() => http?.verify());

  function signInWithToken(csrfToken: string): void {
    auth.login({ identifier: 'ada', password: 'correct horse battery' }).subscribe();
    http.expectOne(AUTH_URLS.login).flush({ user: userBody(), csrfToken });
  }

  it('adds the token of the sign-in answer to every API write', () => {
    signInWithToken('tok-1');

    client.post('/api/tokens', { name: 'x' }).subscribe();
    client.put('/api/settings/smtp', {}).subscribe();
    client.patch('/api/account', {}).subscribe();
    client.delete('/api/tokens/1').subscribe();

    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const request = http.expectOne((r) => r.method === method);
      expect(request.request.headers.get(CSRF_HEADER)).withContext(method).toBe('tok-1');
      request.flush({});
    }
  });

  it('leaves reads alone', () => {
    signInWithToken('tok-1');

    client.get('/api/users').subscribe();

    expect(http.expectOne('/api/users').request.headers.has(CSRF_HEADER)).toBeFalse();
  });

  it('never sends the token to another origin', () => {
    signInWithToken('tok-1');

    client.post('https://elsewhere.example/api/tokens', {}).subscribe();

    expect(http.expectOne('https://elsewhere.example/api/tokens').request.headers.has(CSRF_HEADER)).toBeFalse();
  });

  it('sends no header before a token is known', () => {
    client.post('/api/auth/login', {}).subscribe();

    expect(http.expectOne('/api/auth/login').request.headers.has(CSRF_HEADER)).toBeFalse();
  });

  it('fetches the token from /api/auth/csrf when an existing session is found', () => {
    auth.loadMe().subscribe();
    http.expectOne(AUTH_URLS.me).flush({ user: userBody() });
    http.expectOne(AUTH_URLS.csrf).flush({ csrfToken: 'tok-2' });

    client.delete('/api/tokens/1').subscribe();

    expect(http.expectOne('/api/tokens/1').request.headers.get(CSRF_HEADER)).toBe('tok-2');
  });

  it('forgets the token on sign-out', () => {
    signInWithToken('tok-1');
    auth.logout().subscribe();
    const logout = http.expectOne(AUTH_URLS.logout);
    expect(logout.request.headers.get(CSRF_HEADER)).toBe('tok-1');
    logout.flush(null, { status: 204, statusText: 'No Content' });

    client.post('/api/tokens', {}).subscribe();

    expect(http.expectOne('/api/tokens').request.headers.has(CSRF_HEADER)).toBeFalse();
  });
  describe("after a 403 'csrf_failed'", () => {
    const REFUSED = { status: 403, statusText: 'Forbidden' };
    const csrfFailed = { error: 'Missing or invalid CSRF token', code: 'csrf_failed' };

    it('fetches a fresh token once, keeps it and sends the write again with it', async () => {
      signInWithToken('stale');
      let answer: unknown;
      client.post('/api/tokens', { name: 'ci' }).subscribe((body) => (answer = body));

      const first = http.expectOne({ method: 'POST', url: '/api/tokens' });
      expect(first.request.headers.get(CSRF_HEADER)).toBe('stale');
      first.flush(csrfFailed, REFUSED);
      http.expectOne({ method: 'GET', url: AUTH_URLS.csrf }).flush({ csrfToken: 'fresh' });

      const retry = http.expectOne({ method: 'POST', url: '/api/tokens' });
      expect(retry.request.headers.get(CSRF_HEADER)).toBe('fresh');
      expect(retry.request.body).toEqual({ name: 'ci' });
      retry.flush({ id: 1 });
      expect(answer).toEqual({ id: 1 });

      // Later writes use the fresh token straight away.
      client.delete('/api/tokens/1').subscribe();
      expect(http.expectOne('/api/tokens/1').request.headers.get(CSRF_HEADER)).toBe('fresh');
    });

    it('retries only once: a second refusal reaches the caller', () => {
      signInWithToken('stale');
      let failure: HttpErrorResponse | undefined;
      client.post('/api/tokens', {}).subscribe({ error: (err: HttpErrorResponse) => (failure = err) });

      http.expectOne({ method: 'POST', url: '/api/tokens' }).flush(csrfFailed, REFUSED);
      http.expectOne(AUTH_URLS.csrf).flush({ csrfToken: 'still-wrong' });
      http.expectOne({ method: 'POST', url: '/api/tokens' }).flush(csrfFailed, REFUSED);

      http.expectNone(AUTH_URLS.csrf);
      http.expectNone('/api/tokens');
      expect(failure?.status).toBe(403);
      expect(failure?.error.code).toBe('csrf_failed');
    });

    it('hands the refusal on when no fresh token can be had', () => {
      signInWithToken('stale');
      let failure: HttpErrorResponse | undefined;
      client.put('/api/settings/smtp', {}).subscribe({ error: (err: HttpErrorResponse) => (failure = err) });

      http.expectOne('/api/settings/smtp').flush(csrfFailed, REFUSED);
      http.expectOne(AUTH_URLS.csrf).error(new ProgressEvent('error'));

      http.expectNone('/api/settings/smtp');
      expect(failure?.error.code).toBe('csrf_failed');
    });

    it('leaves other refusals alone (a foreign origin, a role)', () => {
      signInWithToken('tok-1');
      let failures = 0;
      client.post('/api/tokens', {}).subscribe({ error: () => failures++ });
      client.delete('/api/users/2').subscribe({ error: () => failures++ });

      http.expectOne('/api/tokens').flush({ error: 'Cross-origin request refused', code: 'foreign_origin' }, REFUSED);
      http.expectOne('/api/users/2').flush({ error: 'Forbidden', code: 'forbidden' }, REFUSED);

      http.expectNone(AUTH_URLS.csrf);
      expect(failures).toBe(2);
    });

    it('never retries a read', () => {
      signInWithToken('tok-1');
      client.get('/api/users').subscribe({ error: () => undefined });

      http.expectOne('/api/users').flush(csrfFailed, REFUSED);

      http.expectNone(AUTH_URLS.csrf);
    });
  });
});
