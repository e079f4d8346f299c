import { HttpTestingController } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, Routes } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';

import { nextRequest, provideForTests } from '@console/testing';
import { AUTH_URLS, User } from './auth';
import { userBody } from './auth-testing';
import { adminGuard, loginPageGuard, setupPageGuard, signedInGuard, writerGuard } from './guards';

@Component({ template: 'start' })
class Start {}
@Component({ template: 'private' })
class Private {}
@Component({ template: 'admin' })
class Admin {}
@Component({ template: 'login' })
class Login {}
@Component({ template: 'setup' })
class Setup {}

const routes: Routes = [
  { path: 'login', component: Login, canActivate: [loginPageGuard] },
  { path: 'setup', component: Setup, canActivate: [setupPageGuard] },
  {
    path: '',
    canActivateChild: [signedInGuard],
    children: [
      { path: '', pathMatch: 'full', component: Start },
      { path: 'private', component: Private },
      { path: 'admin', component: Admin, canActivate: [adminGuard] },
      { path: 'writers', component: Admin, canActivate: [writerGuard] },
    ],
  },
];

describe('route guards', () => {
  let http: HttpTestingController;
  let harness: RouterTestingHarness;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests(routes) });
    http = TestBed.inject(HttpTestingController);
    harness = await RouterTestingHarness.create();
  });

  afterEach(() => http?.verify());

  const url = () => TestBed.inject(Router).url;

  async function answerSession(user: User | null): Promise<void> {
    const me = await nextRequest(http, AUTH_URLS.me);
    if (!user) {
      me.flush({ error: 'Unauthorized' }, { status: 401, statusText: 'Unauthorized' });
      return;
    }
    me.flush({ user });
    (await nextRequest(http, AUTH_URLS.csrf)).flush({ csrfToken: 't' });
  }

  async function answerOptions(setupNeeded: boolean): Promise<void> {
    (await nextRequest(http, AUTH_URLS.options)).flush({ setupNeeded, mailEnabled: false });
  }

  describe('signed-in guard', () => {
    it('sends a signed-out visitor to sign in, remembering the page', async () => {
      const navigation = harness.navigateByUrl('/private?tab=2');
      await answerSession(null);
      await answerOptions(false);
      await navigation;

      expect(url()).toBe('/login?returnUrl=%2Fprivate%3Ftab%3D2');
      expect(harness.routeNativeElement?.textContent).toBe('login');
    });

    it('opens the page for a signed-in user', async () => {
      expect(await landingAs(userBody({ role: 'VIEWER' }), '/private')).toBe('/private');
    });

    it('sends to sign-in when the API cannot be reached', async () => {
      const navigation = harness.navigateByUrl('/');
      (await nextRequest(http, AUTH_URLS.me)).error(new ProgressEvent('error'));
      (await nextRequest(http, AUTH_URLS.options)).error(new ProgressEvent('error'));
      await navigation;

      expect(url()).toBe('/login');
    });
  });

  /** Where a visit to `path` by a session of `user` ends. */
  async function landingAs(user: User, path: string): Promise<string> {
    const navigation = harness.navigateByUrl(path);
    await answerSession(user);
    await navigation;
    return url();
  }

  describe('admin guard', () => {
    it('turns other roles back to the start page', async () => {
      expect(await landingAs(userBody({ role: 'OPERATOR' }), '/admin')).toBe('/');
    });

    it('lets an administrator in', async () => {
      expect(await landingAs(userBody({ role: 'ADMIN' }), '/admin')).toBe('/admin');
    });
  });

  describe('writer guard (notification channels and routing)', () => {
    it('lets an operator in', async () => {
      expect(await landingAs(userBody({ role: 'OPERATOR', customerIds: [10] }), '/writers')).toBe('/writers');
    });

    it('turns a viewer back to the start page', async () => {
      expect(await landingAs(userBody({ role: 'VIEWER', customerIds: [10] }), '/writers')).toBe('/');
    });
  });

  describe('sign-in and setup pages', () => {
    it('/login redirects to /setup while no account exists', async () => {
      const navigation = harness.navigateByUrl('/login');
      await answerOptions(true);
      await answerOptions(true); // asked again by the setup page's own guard
      await navigation;

      expect(url()).toBe('/setup');
    });

    it('/setup redirects to /login once an account exists', async () => {
      const navigation = harness.navigateByUrl('/setup');
      await answerOptions(false);
      await answerOptions(false); // asked again by the sign-in page's own guard
      await answerSession(null);
      await navigation;

      expect(url()).toBe('/login');
    });

    it('/setup opens while no account exists', async () => {
      const navigation = harness.navigateByUrl('/setup');
      await answerOptions(true);
      await navigation;

      expect(url()).toBe('/setup');
    });

    const returns = [
      { returnUrl: '%2Fprivate', lands: '/private', does: 'sends a signed-in user on to the page asked for' },
      { returnUrl: '%2F%2Fevil.example%2F', lands: '/', does: 'ignores a return address outside the console' },
    ];
    for (const { returnUrl, lands, does } of returns) {
      it(`/login ${does}`, async () => {
        const navigation = harness.navigateByUrl(`/login?returnUrl=${returnUrl}`);
        await answerOptions(false);
        await answerSession(userBody());
        await navigation;

        expect(url()).toBe(lands);
      });
    }
  });
});
