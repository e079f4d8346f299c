import { HttpClient } from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { provideForTests } from '../testing';
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

  afterEach(() => http.verify());

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
});
