import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { AUTH_URLS, AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { provideForTests, settle, typeInto } from '@console/testing';
import { LoginPage } from './login-page';
import { SSO_OPTIONS_URL } from './sso-options-api';

describe('LoginPage', () => {
  let fixture: ComponentFixture<LoginPage>;
  let http: HttpTestingController;
  let navigate: jasmine.Spy;

  async function render(options = { setupNeeded: false, mailEnabled: true }, inputs: Record<string, string> = {}) {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    navigate = spyOn(TestBed.inject(Router), 'navigateByUrl').and.resolveTo(true);
    fixture = TestBed.createComponent(LoginPage);
    for (const [name, value] of Object.entries(inputs)) fixture.componentRef.setInput(name, value);
    http.expectOne(AUTH_URLS.options).flush(options);
    await settle(fixture);
    http.expectOne(SSO_OPTIONS_URL).flush({ enabled: false, name: null });
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const input = (name: string) =>
    page().querySelector<HTMLInputElement>(`input[formcontrolname="${name}"], input[name="${name}"]`);
  const alertText = () => page().querySelector('[role="alert"]')?.textContent?.trim();

  async function submit(): Promise<void> {
    page().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await settle(fixture);
  }

  async function enterPassword(identifier = 'ada', password = 'correct horse battery'): Promise<void> {
    typeInto(input('identifier'), identifier);
    typeInto(input('password'), password);
    await submit();
  }

  it('offers "Forgot password?" only while mail is enabled', async () => {
    await render({ setupNeeded: false, mailEnabled: true });
    expect(page().querySelector('a[href="/forgot-password"]')?.textContent).toContain('Forgot password?');
  });

  it('hides "Forgot password?" while mail is disabled', async () => {
    await render({ setupNeeded: false, mailEnabled: false });
    expect(page().querySelector('a[href="/forgot-password"]')).toBeNull();
  });

  it('signs in with the password alone and opens the page asked for', async () => {
    await render(undefined, { returnUrl: '/users?sort=name' });
    await enterPassword('Ada@Example.com');

    const request = http.expectOne({ method: 'POST', url: AUTH_URLS.login });
    expect(request.request.body).toEqual({ identifier: 'Ada@Example.com', password: 'correct horse battery' });
    request.flush({ user: userBody(), csrfToken: 'tok' });
    await settle(fixture);

    expect(TestBed.inject(AuthService).user()).toEqual(userBody());
    expect(navigate).toHaveBeenCalledWith('/users?sort=name');
  });

  it('goes to the start page when the return address leads elsewhere', async () => {
    await render(undefined, { returnUrl: '//evil.example/phish' });
    await enterPassword();
    http.expectOne(AUTH_URLS.login).flush({ user: userBody(), csrfToken: 'tok' });
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('shows a refused sign-in inline and stays on the form', async () => {
    await render();
    await enterPassword('ada', 'wrong');
    http.expectOne(AUTH_URLS.login).flush({ error: 'Invalid sign-in' }, { status: 401, statusText: 'Unauthorized' });
    await settle(fixture);

    expect(alertText()).toBe('Invalid sign-in');
    expect(page().querySelector('[data-testid="password-step"]')).not.toBeNull();
    expect(navigate).not.toHaveBeenCalled();
  });

  it('tells how long to wait when rate-limited', async () => {
    await render();
    await enterPassword();
    http
      .expectOne(AUTH_URLS.login)
      .flush(
        { error: 'Too many requests' },
        { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '30' } },
      );
    await settle(fixture);

    expect(alertText()).toBe('Too many attempts. Try again in 30 seconds.');
  });

  it('does not send an empty form', async () => {
    await render();
    await submit();

    http.expectNone(AUTH_URLS.login);
    expect(page().textContent).toContain('Enter your e-mail address or username.');
  });

  describe('second factor', () => {
    async function reachCodeStep(method: 'totp' | 'email'): Promise<void> {
      await render();
      await enterPassword();
      http.expectOne(AUTH_URLS.login).flush({ secondFactor: method });
      await settle(fixture);
    }

    it('asks for the authenticator code, sending the same credentials again with it', async () => {
      await reachCodeStep('totp');

      expect(page().querySelector('[data-testid="code-step"]')?.textContent).toContain('authenticator app');
      const code = input('code')!;
      expect(code.getAttribute('autocomplete')).toBe('one-time-code');
      expect(code.getAttribute('inputmode')).toBe('numeric');
      expect(document.activeElement).toBe(code);
      expect(TestBed.inject(AuthService).user()).toBeNull();

      typeInto(code, '123 456');
      page().querySelector<HTMLInputElement>('mat-checkbox input')!.click();
      await submit();

      const request = http.expectOne(AUTH_URLS.login);
      expect(request.request.body).toEqual({
        identifier: 'ada',
        password: 'correct horse battery',
        code: '123456',
        trustDevice: true,
      });
      request.flush({ user: userBody(), csrfToken: 'tok' });
      await settle(fixture);

      expect(navigate).toHaveBeenCalledWith('/');
    });

    it('offers to trust the device for 30 days, unticked', async () => {
      await reachCodeStep('totp');

      const checkbox = page().querySelector('mat-checkbox')!;
      expect(checkbox.textContent).toContain('Trust this device for 30 days');
      expect(checkbox.querySelector('input')!.checked).toBeFalse();
    });

    it('says the code was e-mailed and keeps the step after a wrong code', async () => {
      await reachCodeStep('email');
      expect(page().querySelector('[data-testid="code-step"]')?.textContent).toContain('e-mailed you a 6-digit code');

      typeInto(input('code'), '000000');
      await submit();
      http
        .expectOne(AUTH_URLS.login)
        .flush({ error: 'Invalid code', code: 'invalid_code' }, { status: 401, statusText: 'Unauthorized' });
      await settle(fixture);

      expect(alertText()).toBe('Invalid code');
      expect(page().querySelector('[data-testid="code-step"]')).not.toBeNull();
    });

    it("keys the wrong-code case on the code 'invalid_code', whatever the message says", async () => {
      await reachCodeStep('totp');

      typeInto(input('code'), '000000');
      await submit();
      http
        .expectOne(AUTH_URLS.login)
        .flush({ error: 'That code did not work', code: 'invalid_code' }, { status: 401, statusText: 'Unauthorized' });
      await settle(fixture);

      expect(alertText()).toBe('That code did not work');
      expect(page().querySelector('[data-testid="code-step"]')).not.toBeNull();
      expect(input('code')!.value).toBe('000000');
    });

    it('starts over with the password when another 401 answers the code', async () => {
      await reachCodeStep('totp');

      typeInto(input('code'), '123456');
      await submit();
      http
        .expectOne(AUTH_URLS.login)
        .flush({ error: 'Invalid code', code: 'invalid_sign_in' }, { status: 401, statusText: 'Unauthorized' });
      await settle(fixture);

      expect(alertText()).toBe('Invalid code');
      expect(page().querySelector('[data-testid="password-step"]')).not.toBeNull();
      expect(page().querySelector('[data-testid="code-step"]')).toBeNull();
    });

    it('keeps the code step when rate-limited there', async () => {
      await reachCodeStep('totp');

      typeInto(input('code'), '123456');
      await submit();
      http
        .expectOne(AUTH_URLS.login)
        .flush(
          { error: 'Too many requests', code: 'rate_limited' },
          { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '30' } },
        );
      await settle(fixture);

      expect(alertText()).toBe('Too many attempts. Try again in 30 seconds.');
      expect(page().querySelector('[data-testid="code-step"]')).not.toBeNull();
    });

    it('refuses a code that is not six digits without asking the server', async () => {
      await reachCodeStep('totp');

      typeInto(input('code'), '12345');
      await submit();

      http.expectNone(AUTH_URLS.login);
      expect(page().textContent).toContain('The code has 6 digits.');
    });

    it('goes back to the password step', async () => {
      await reachCodeStep('totp');

      Array.from(page().querySelectorAll('button'))
        .find((b) => b.textContent?.includes('Back'))!
        .click();
      await settle(fixture);

      expect(page().querySelector('[data-testid="password-step"]')).not.toBeNull();
      expect(input('identifier')!.value).toBe('ada');
    });
  });

  it('shows the notice another page left', async () => {
    await render(undefined, { notice: 'reset' });

    expect(page().querySelector('[data-testid="notice"]')?.textContent).toContain('Your password has been changed');
  });
});
