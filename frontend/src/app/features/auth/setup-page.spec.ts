import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { AUTH_URLS } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { provideForTests, settle, typeInto } from '@console/testing';
import { SetupPage } from './setup-page';

describe('SetupPage', () => {
  let fixture: ComponentFixture<SetupPage>;
  let http: HttpTestingController;
  let navigate: jasmine.Spy;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    navigate = spyOn(TestBed.inject(Router), 'navigate').and.resolveTo(true);
    fixture = TestBed.createComponent(SetupPage);
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const input = (name: string) =>
    page().querySelector<HTMLInputElement>(`input[formcontrolname="${name}"], input[name="${name}"]`);
  const ruleStates = () =>
    Array.from(page().querySelectorAll('argus-password-rules li'), (li) => li.className.replace('rule rule--', ''));

  async function fill(values: Partial<Record<'name' | 'email' | 'username' | 'password' | 'confirm', string>>) {
    const all = { name: 'Ada Lovelace', email: 'ada@example.com', username: '', ...values };
    all.confirm ??= all.password;
    for (const [name, value] of Object.entries(all)) typeInto(input(name), value ?? '');
    page().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await settle(fixture);
  }

  it('shows the password rules', () => {
    const text = page().querySelector('argus-password-rules')!.textContent;

    expect(text).toContain('At least 12 characters');
    expect(text).toContain('At most 72 bytes');
    expect(text).toContain('Not the same as the e-mail address or username');
  });

  it('refuses a password shorter than 12 characters', async () => {
    await fill({ password: 'short pass' });

    http.expectNone(AUTH_URLS.setup);
    expect(ruleStates()).toEqual(['bad', 'ok', 'ok']);
  });

  it('counts bytes, not characters, against the 72-byte limit', async () => {
    // 37 characters, 74 bytes in UTF-8.
    await fill({ password: 'é'.repeat(37) });

    http.expectNone(AUTH_URLS.setup);
    expect(ruleStates()).toEqual(['ok', 'bad', 'ok']);
  });

  it('accepts exactly 72 bytes', async () => {
    await fill({ password: 'é'.repeat(36) });

    http
      .expectOne(AUTH_URLS.setup)
      .flush({ id: 1, email: 'ada@example.com', role: 'ADMIN' }, { status: 201, statusText: 'Created' });
    http.expectOne(AUTH_URLS.login);
  });

  it('refuses the e-mail address or the username as password, in any case', async () => {
    await fill({ email: 'ada.lovelace@example.com', password: 'ADA.LOVELACE@example.com' });
    http.expectNone(AUTH_URLS.setup);
    expect(page().textContent).toContain('The password must differ from the e-mail address and username.');

    await fill({ username: 'ada-lovelace-1815', password: 'ada-lovelace-1815' });
    http.expectNone(AUTH_URLS.setup);
    expect(ruleStates()).toEqual(['ok', 'ok', 'bad']);
  });

  it('refuses a confirmation that does not match', async () => {
    await fill({ password: 'a long enough passphrase', confirm: 'a long enough passphrasE' });

    http.expectNone(AUTH_URLS.setup);
    expect(page().textContent).toContain('The passwords do not match.');
  });

  it('refuses a username with "@" (it would be read as an e-mail address at sign-in)', async () => {
    await fill({ username: 'ada@home', password: 'a long enough passphrase' });

    http.expectNone(AUTH_URLS.setup);
  });

  it('creates the administrator and signs them in directly', async () => {
    await fill({ username: 'ada', password: 'a long enough passphrase' });

    const request = http.expectOne({ method: 'POST', url: AUTH_URLS.setup });
    expect(request.request.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      username: 'ada',
      password: 'a long enough passphrase',
    });
    request.flush({ id: 1, email: 'ada@example.com', role: 'ADMIN' }, { status: 201, statusText: 'Created' });
    await settle(fixture);

    const login = http.expectOne({ method: 'POST', url: AUTH_URLS.login });
    expect(login.request.body).toEqual({ identifier: 'ada@example.com', password: 'a long enough passphrase' });
    login.flush({ user: userBody({ email: 'ada@example.com' }), csrfToken: 'csrf' });
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith(['/']);
  });

  it('sends the administrator to sign in when the automatic sign-in is refused', async () => {
    await fill({ password: 'a long enough passphrase' });
    http
      .expectOne(AUTH_URLS.setup)
      .flush({ id: 1, email: 'ada@example.com', role: 'ADMIN' }, { status: 201, statusText: 'Created' });
    await settle(fixture);

    http
      .expectOne(AUTH_URLS.login)
      .flush({ error: 'Too many attempts' }, { status: 429, statusText: 'Too Many Requests' });
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith(['/login'], { queryParams: { notice: 'setup' } });
  });

  it('leaves an empty username out', async () => {
    await fill({ password: 'a long enough passphrase' });

    const request = http.expectOne(AUTH_URLS.setup);
    expect(Object.keys(request.request.body)).toEqual(['name', 'email', 'password']);
    request.flush({ id: 1, email: 'ada@example.com', role: 'ADMIN' }, { status: 201, statusText: 'Created' });
    http.expectOne(AUTH_URLS.login);
  });

  it('says "Already set up" when someone else finished first, and points to sign-in', async () => {
    await fill({ password: 'a long enough passphrase' });
    http.expectOne(AUTH_URLS.setup).flush({ error: 'Already set up' }, { status: 409, statusText: 'Conflict' });
    await settle(fixture);

    const alert = page().querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain('Already set up');
    expect(alert.querySelector('a')?.getAttribute('href')).toBe('/login');
    expect(page().querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).toBeTrue();
    expect(navigate).not.toHaveBeenCalled();
  });

  it("puts the server's field error under that field", async () => {
    await fill({ password: 'a long enough passphrase' });
    http
      .expectOne(AUTH_URLS.setup)
      .flush(
        { error: 'email: must be an e-mail address', details: { field: 'email' } },
        { status: 400, statusText: 'Bad Request' },
      );
    await settle(fixture);

    expect(page().querySelector('mat-error')?.textContent?.trim()).toBe('Must be an e-mail address');
    expect(page().querySelector('[role="alert"]')).toBeNull();
  });
});
