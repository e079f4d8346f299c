import { HttpTestingController } from '@angular/common/http/testing';
import { Component, Provider } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { MatDialog } from '@angular/material/dialog';
import { MatTooltip } from '@angular/material/tooltip';
import { By } from '@angular/platform-browser';
import { Router } from '@angular/router';

import { App } from './app';
import { AUTH_URLS, AuthService, LEAVE_CONSOLE, User } from './core/auth';
import { userBody } from './core/auth-testing';
import { BARE_LAYOUT } from './core/layout';
import { buttonByText, overlayText, provideForTests, settle } from './testing';

@Component({ template: '' })
class Blank {}

describe('App shell', () => {
  async function render(user: User | null, url = '/', extra: Provider[] = []) {
    TestBed.configureTestingModule({
      providers: [
        ...provideForTests([
          { path: 'login', component: Blank, data: BARE_LAYOUT },
          { path: '**', component: Blank },
        ]),
        ...extra,
      ],
    });
    if (user) TestBed.inject(AuthService).updateUser(user);
    const fixture = TestBed.createComponent(App);
    await TestBed.inject(Router).navigateByUrl(url);
    await settle(fixture);
    return fixture;
  }

  const titles = (root: HTMLElement) =>
    Array.from(root.querySelectorAll('mat-nav-list [matListItemTitle]'), (el) => el.textContent?.trim());

  it('names the product in the toolbar', async () => {
    const fixture = await render(null);

    expect(fixture.nativeElement.querySelector('mat-toolbar').textContent).toContain('Argus');
  });

  it('shows neither navigation nor account menu while signed out', async () => {
    const fixture = await render(null);
    const page: HTMLElement = fixture.nativeElement;

    expect(page.querySelector('mat-nav-list')).toBeNull();
    expect(page.querySelector('.user-button')).toBeNull();
  });

  it('renders the sign-in pages without navigation, even for a signed-in user', async () => {
    const fixture = await render(userBody(), '/login');

    expect(fixture.nativeElement.querySelector('mat-nav-list')).toBeNull();
  });

  it('lists every area of the console for an administrator, in order', async () => {
    const fixture = await render(userBody({ role: 'ADMIN' }));

    expect(titles(fixture.nativeElement)).toEqual([
      'Overview',
      'Systems',
      'Alerts',
      'Availability',
      'Rules',
      'Maintenance',
      'Customers',
      'Notification channels',
      'Notification routing',
      'Public status pages',
      'Users',
      'Mail settings',
      'Single sign-on',
      'Agent updates',
      'Alert retention',
      'Forecasts',
      'Storage',
      'Audit log',
      'Argus health',
      'API',
    ]);
  });

  it('groups the sidebar into Monitor, Configure and Administer, each list named by its group', async () => {
    const fixture = await render(userBody({ role: 'ADMIN' }));
    const lists = Array.from(fixture.nativeElement.querySelectorAll('mat-nav-list') as NodeListOf<HTMLElement>);
    const names = lists.map((list) => {
      const label = fixture.nativeElement.querySelector(`#${list.getAttribute('aria-labelledby')}`);
      return label?.textContent?.trim();
    });
    expect(names).toEqual(['Monitor', 'Configure', 'Administer']);
    const entries = (group: string) =>
      Array.from(lists[names.indexOf(group)]!.querySelectorAll('[matListItemTitle]'), (el) => el.textContent?.trim());
    expect(entries('Monitor')).toEqual(['Overview', 'Systems', 'Alerts', 'Availability']);
    expect(entries('Administer')).toContain('Argus health');
    // whole labels: the title may wrap but never ends in an ellipsis
    const longest = Array.from(lists[1]!.querySelectorAll<HTMLElement>('[matListItemTitle]')).find(
      (el) => el.textContent?.trim() === 'Notification channels',
    );
    expect(longest && getComputedStyle(longest).whiteSpace).toBe('normal');
  });

  it('links only to pages that exist; the others are disabled and marked as coming soon', async () => {
    const fixture = await render(userBody({ role: 'ADMIN' }));
    const links = Array.from(fixture.nativeElement.querySelectorAll('mat-nav-list a[href]') as NodeListOf<HTMLElement>);

    expect(links.map((a) => [a.textContent?.trim(), a.getAttribute('href')])).toEqual([
      ['Overview', '/'],
      ['Systems', '/systems'],
      ['Alerts', '/alerts'],
      ['Availability', '/reports/availability'],
      ['Rules', '/rules'],
      ['Maintenance', '/maintenance'],
      ['Customers', '/customers'],
      ['Notification channels', '/settings/channels'],
      ['Notification routing', '/settings/routing'],
      ['Public status pages', '/settings/status-pages'],
      ['Users', '/users'],
      ['Mail settings', '/settings/mail'],
      ['Single sign-on', '/settings/sso'],
      ['Agent updates', '/settings/agent-rollout'],
      ['Alert retention', '/settings/alerts'],
      ['Forecasts', '/settings/forecasts'],
      ['Storage', '/settings/storage'],
      ['Audit log', '/settings/audit-log'],
      ['Argus health', '/status'],
      ['API', '/reference/api'],
    ]);

    // every area exists now: alerts, rules and maintenance included
    const comingSoon = fixture.debugElement.query(By.css('mat-nav-list')).queryAll(By.directive(MatTooltip));
    expect(comingSoon.length).toBe(0);
    for (const entry of comingSoon) {
      expect(entry.injector.get(MatTooltip).message).toBe('Coming soon');
      expect(entry.query(By.css('mat-list-item')).attributes['aria-disabled']).toBe('true');
    }
  });

  it('links Systems, Customers, the availability reports and the API reference for a viewer too', async () => {
    const fixture = await render(userBody({ role: 'VIEWER' }));
    const hrefs = Array.from(
      fixture.nativeElement.querySelectorAll('mat-nav-list a[href]') as NodeListOf<HTMLElement>,
      (a) => a.getAttribute('href'),
    );

    expect(hrefs).toEqual([
      '/',
      '/systems',
      '/alerts',
      '/reports/availability',
      '/rules',
      '/maintenance',
      '/customers',
      '/status',
      '/reference/api',
    ]);
  });

  it('keeps Systems highlighted on the page of one system', async () => {
    const fixture = await render(userBody(), '/systems/7');
    // routerLinkActive learns of the navigation after the first pass.
    await settle(fixture);
    const active = fixture.nativeElement.querySelector('mat-nav-list a.mdc-list-item--activated');

    expect(active?.textContent?.trim()).toBe('Systems');
  });

  it('hides Users and Settings from other roles', async () => {
    const fixture = await render(userBody({ role: 'OPERATOR' }));

    expect(titles(fixture.nativeElement)).not.toContain('Users');
    expect(titles(fixture.nativeElement)).not.toContain('Mail settings');
  });

  it('lists the notification pages for an operator', async () => {
    const fixture = await render(userBody({ role: 'OPERATOR', customerIds: [10] }));

    expect(titles(fixture.nativeElement)).toContain('Notification channels');
    expect(titles(fixture.nativeElement)).toContain('Notification routing');
    expect(titles(fixture.nativeElement)).toContain('Audit log');
    expect(titles(fixture.nativeElement)).toContain('Public status pages');
  });

  it('hides the notification pages from a viewer', async () => {
    const fixture = await render(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(titles(fixture.nativeElement)).not.toContain('Notification channels');
    expect(titles(fixture.nativeElement)).not.toContain('Notification routing');
    expect(titles(fixture.nativeElement)).not.toContain('Audit log');
    expect(titles(fixture.nativeElement)).not.toContain('Public status pages');
  });

  it('shows the signed-in user with a menu to the account page and to sign out', async () => {
    const fixture = await render(userBody({ name: 'Grace Hopper' }));
    const trigger: HTMLButtonElement = fixture.nativeElement.querySelector('.user-button');
    expect(trigger.getAttribute('aria-label')).toContain('Grace Hopper');

    trigger.click();
    await settle(fixture);

    expect(overlayText()).toContain('Account');
    expect(document.querySelector('.cdk-overlay-container a[href="/account"]')).not.toBeNull();

    const http = TestBed.inject(HttpTestingController);
    const navigate = spyOn(TestBed.inject(Router), 'navigateByUrl').and.resolveTo(true);
    buttonByText('Sign out').click();
    http.expectOne({ method: 'POST', url: AUTH_URLS.logout }).flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);

    expect(TestBed.inject(AuthService).user()).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
    expect(fixture.nativeElement.querySelector('.user-button')).toBeNull();
  });

  it("signs an account of the identity provider out there too: the browser goes to the provider's page", async () => {
    const left: string[] = [];
    const fixture = await render(userBody(), '/', [
      { provide: LEAVE_CONSOLE, useValue: (url: string) => left.push(url) },
    ]);
    const http = TestBed.inject(HttpTestingController);
    const navigate = spyOn(TestBed.inject(Router), 'navigateByUrl').and.resolveTo(true);
    fixture.nativeElement.querySelector('.user-button').click();
    await settle(fixture);
    buttonByText('Sign out').click();
    const provider =
      'https://idp.example.com/logout?client_id=argus&post_logout_redirect_uri=https%3A%2F%2Fargus%2Flogin';
    http.expectOne({ method: 'POST', url: AUTH_URLS.logout }).flush({ redirect: provider });
    await settle(fixture);

    expect(TestBed.inject(AuthService).user()).toBeNull();
    expect(left).toEqual([provider]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('opens the quick search with Ctrl+K, or "/" outside a text field, on the console pages', async () => {
    const fixture = await render(userBody());
    const dialogs = () => document.querySelectorAll('mat-dialog-container').length;
    const press = (key: string, init: KeyboardEventInit = {}, target: EventTarget = document.body) =>
      target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }));
    // the search loads on first use (a lazy chunk): wait for its dialog rather than one turn
    const dialogOpened = async () => {
      for (let tries = 0; tries < 100 && dialogs() === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await settle(fixture);
      }
      return dialogs();
    };

    const field = document.createElement('input');
    document.body.appendChild(field);
    press('/', {}, field);
    await settle(fixture);
    expect(dialogs()).toBe(0);
    field.remove();

    press('k', { ctrlKey: true });
    expect(await dialogOpened()).toBe(1);
    TestBed.inject(MatDialog).closeAll();
    await settle(fixture);

    press('/');
    expect(await dialogOpened()).toBe(1);
    TestBed.inject(MatDialog).closeAll();
    expect(fixture.nativeElement.querySelector('.search-button').getAttribute('aria-keyshortcuts')).toBe('Control+K /');
  });

  it('has no quick search while signed out', async () => {
    const fixture = await render(null, '/login');
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true }));
    await settle(fixture);

    expect(document.querySelector('mat-dialog-container')).toBeNull();
    expect(fixture.nativeElement.querySelector('.search-button')).toBeNull();
  });

  it('offers the theme choice, signed in or not, and marks the current one', async () => {
    localStorage.removeItem('argus.theme');
    const fixture = await render(null, '/login');
    const trigger: HTMLButtonElement = fixture.nativeElement.querySelector('.theme-button');
    expect(trigger.getAttribute('aria-label')).toBe('Theme: As the system');

    trigger.click();
    await settle(fixture);
    const choices = Array.from(document.querySelectorAll<HTMLElement>('.cdk-overlay-container [role="menuitemradio"]'));
    expect(choices.map((item) => [item.textContent?.trim(), item.getAttribute('aria-checked')])).toEqual([
      ['As the system', 'true'],
      ['Light', 'false'],
      ['Dark', 'false'],
    ]);

    choices[2].click();
    await settle(fixture);

    expect(document.documentElement.style.colorScheme).toBe('dark');
    expect(trigger.getAttribute('aria-label')).toBe('Theme: Dark');
    localStorage.removeItem('argus.theme');
    document.documentElement.style.colorScheme = '';
  });
});
