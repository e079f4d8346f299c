import { HttpErrorResponse } from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { firstValueFrom } from 'rxjs';

import { provideForTests } from '@console/testing';
import { AUTH_URLS, AuthService } from './auth';
import { userBody } from './auth-testing';

describe('AuthService', () => {
  let http: HttpTestingController;
  let auth: AuthService;

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    auth = TestBed.inject(AuthService);
  });

  afterEach(() => http?.verify());

  it('treats a 401 from /api/auth/me as signed out', async () => {
    const result = firstValueFrom(auth.loadMe());
    http.expectOne(AUTH_URLS.me).flush({ error: 'Unauthorized' }, { status: 401, statusText: 'Unauthorized' });

    expect(await result).toBeNull();
    expect(auth.user()).toBeNull();
  });

  it('asks for the session once and shares the answer', async () => {
    const first = firstValueFrom(auth.session());
    const second = firstValueFrom(auth.session());
    http.expectOne(AUTH_URLS.me).flush({ user: userBody() });
    http.expectOne(AUTH_URLS.csrf).flush({ csrfToken: 't' });

    expect(await first).toEqual(userBody());
    expect(await second).toEqual(userBody());
    expect(await firstValueFrom(auth.session())).toEqual(userBody());
  });

  it('asks again after a failed session check', async () => {
    const failed = firstValueFrom(auth.session());
    http.expectOne(AUTH_URLS.me).error(new ProgressEvent('error'));
    await expectAsync(failed).toBeRejectedWith(jasmine.any(HttpErrorResponse));

    const retried = firstValueFrom(auth.session());
    http.expectOne(AUTH_URLS.me).flush({ error: 'Unauthorized' }, { status: 401, statusText: 'Unauthorized' });
    expect(await retried).toBeNull();
  });

  it('signs in when the password is enough', async () => {
    const result = firstValueFrom(auth.login({ identifier: 'ada', password: 'pw' }));
    http.expectOne(AUTH_URLS.login).flush({ user: userBody(), csrfToken: 't' });

    expect(await result).toEqual({ kind: 'signed-in', user: userBody() });
    expect(auth.user()).toEqual(userBody());
    expect(auth.isAdmin()).toBeTrue();
  });

  it('reports a second factor without signing in', async () => {
    const result = firstValueFrom(auth.login({ identifier: 'ada', password: 'pw' }));
    http.expectOne(AUTH_URLS.login).flush({ secondFactor: 'email' });

    expect(await result).toEqual({ kind: 'second-factor', method: 'email' });
    expect(auth.user()).toBeNull();
  });

  it('forgets the account on sign-out even when the server does not answer', async () => {
    auth.updateUser(userBody());
    const done = firstValueFrom(auth.logout());
    http.expectOne(AUTH_URLS.logout).error(new ProgressEvent('error'));

    await done;
    expect(auth.user()).toBeNull();
  });
});
