import { HttpClient } from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { provideForTests } from '@console/testing';
import { AUTH_URLS, AuthService } from './auth';
import { userBody } from './auth-testing';

@Component({ template: '' })
class Blank {}

describe('sessionInterceptor', () => {
  let http: HttpTestingController;
  let client: HttpClient;
  let auth: AuthService;
  let router: Router;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests([{ path: '**', component: Blank }]) });
    http = TestBed.inject(HttpTestingController);
    client = TestBed.inject(HttpClient);
    auth = TestBed.inject(AuthService);
    router = TestBed.inject(Router);
    auth.updateUser(userBody());
    await router.navigateByUrl('/users?sort=name');
  });

  afterEach(() => http?.verify());

  const unauthorized = { status: 401, statusText: 'Unauthorized' };

  it('signs the console out and asks for a sign-in that returns to the current page', async () => {
    const navigate = spyOn(router, 'navigate').and.resolveTo(true);
    let failed = false;
    client.get('/api/users').subscribe({ error: () => (failed = true) });

    http.expectOne('/api/users').flush({ error: 'Unauthorized' }, unauthorized);

    expect(failed).withContext('the caller still sees the error').toBeTrue();
    expect(auth.user()).toBeNull();
    expect(navigate).toHaveBeenCalledWith(['/login'], { queryParams: { returnUrl: '/users?sort=name' } });
  });

  it('leaves a refused sign-in to the sign-in page', () => {
    const navigate = spyOn(router, 'navigate');
    client.post(AUTH_URLS.login, {}).subscribe({ error: () => undefined });

    http.expectOne(AUTH_URLS.login).flush({ error: 'Invalid sign-in' }, unauthorized);

    expect(navigate).not.toHaveBeenCalled();
    expect(auth.user()).not.toBeNull();
  });

  it('ignores other errors', () => {
    const navigate = spyOn(router, 'navigate');
    client.delete('/api/users/1').subscribe({ error: () => undefined });

    http.expectOne('/api/users/1').flush({ error: 'Forbidden' }, { status: 403, statusText: 'Forbidden' });

    expect(navigate).not.toHaveBeenCalled();
    expect(auth.user()).not.toBeNull();
  });
});
