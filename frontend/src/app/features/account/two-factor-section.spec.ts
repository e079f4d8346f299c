import { Clipboard } from '@angular/cdk/clipboard';
import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { AUTH_URLS, AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, overlayText, provideForTests, settle, typeInto } from '@console/testing';
import { TOTP_URLS, TotpEnrolment } from './totp-api';
import { groupSecret, TwoFactorSection } from './two-factor-section';

const QR_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function enrolmentBody(overrides: Partial<TotpEnrolment> = {}): TotpEnrolment {
  return {
    secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    otpauthUrl: 'otpauth://totp/Argus:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Argus',
    qrDataUrl: QR_PNG,
    ...overrides,
  };
}

const NO_CONTENT = { status: 204, statusText: 'No Content' };

describe('TwoFactorSection', () => {
  let fixture: ComponentFixture<TwoFactorSection>;
  let http: HttpTestingController;
  let auth: AuthService;

  async function render(totpEnabled: boolean): Promise<void> {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    auth = TestBed.inject(AuthService);
    auth.updateUser(userBody({ totpEnabled }));
    fixture = TestBed.createComponent(TwoFactorSection);
    await settle(fixture);
  }

  // some specs test pure functions and render nothing
  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const status = () => page().querySelector('[data-testid="totp-status"]')?.textContent?.trim();
  const codeInput = () => page().querySelector<HTMLInputElement>('input[name="code"]');

  async function click(label: string, root: ParentNode = page()): Promise<void> {
    buttonByText(label, root).click();
    await settle(fixture);
  }

  /** GET /api/auth/me, then the CSRF token, as AuthService.loadMe asks for them. */
  async function answerReload(totpEnabled: boolean): Promise<void> {
    http.expectOne({ method: 'GET', url: AUTH_URLS.me }).flush({ user: userBody({ totpEnabled }) });
    http.expectOne({ method: 'GET', url: AUTH_URLS.csrf }).flush({ csrfToken: 'tok-2' });
    await settle(fixture);
  }

  async function beginEnrolment(): Promise<void> {
    await click('Set up an authenticator app');
    http.expectOne({ method: 'POST', url: TOTP_URLS.setup }).flush(enrolmentBody());
    await settle(fixture);
  }

  async function enterCode(code: string): Promise<void> {
    typeInto(codeInput(), code);
    await click('Turn on');
  }

  it('groups the key in fours for typing by hand', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXPAB')).toBe('JBSW Y3DP EHPK 3PXP AB');
  });

  it('explains what the app is for while it is off', async () => {
    await render(false);

    expect(status()).toBe('Off');
    expect(page().textContent).toContain('asks for a 6-digit code from an authenticator app');
    expect(page().textContent).toContain('skip the code on that browser for 30 days');
  });

  it('turns on an authenticator app: QR code, key, set-up link, confirming code, account reloaded', async () => {
    await render(false);
    await beginEnrolment();

    const qr = page().querySelector<HTMLImageElement>('img.qr')!;
    expect(qr.getAttribute('src')).toBe(QR_PNG);
    expect(qr.alt).toContain('QR code');
    expect(page().querySelector('[data-testid="totp-secret"]')?.textContent?.trim()).toBe(
      'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP',
    );
    expect(page().querySelector('[data-testid="totp-link"]')?.getAttribute('href')).toBe(enrolmentBody().otpauthUrl);
    expect(document.activeElement?.textContent).toContain('Set up your authenticator app');

    const clipboard = spyOn(TestBed.inject(Clipboard), 'copy').and.returnValue(true);
    await click('Copy key');
    expect(clipboard).toHaveBeenCalledWith('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(page().textContent).toContain('Copied');

    await enterCode('123 456');
    const confirm = http.expectOne({ method: 'POST', url: TOTP_URLS.confirm });
    expect(confirm.request.body).toEqual({ code: '123456' });
    confirm.flush(null, NO_CONTENT);
    await answerReload(true);

    expect(auth.user()?.totpEnabled).toBeTrue();
    expect(status()).toBe('On');
    expect(page().querySelector('[data-testid="totp-notice"]')?.textContent).toContain(
      'Two-factor authentication is on',
    );
    expect(page().querySelector('img.qr')).toBeNull();
    expect(page().textContent).not.toContain('JBSW');
    expect(page().textContent).toContain('Trust this device');
  });

  it('puts a code that does not match under the field and keeps the QR code', async () => {
    await render(false);
    await beginEnrolment();

    await enterCode('000000');
    http.expectOne(TOTP_URLS.confirm).flush(
      {
        error: 'code: the code does not match; check the time on your phone',
        code: 'bad_request',
        details: { field: 'code' },
      },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);

    expect(page().querySelector('mat-error')?.textContent?.trim()).toBe(
      'The code does not match; check the time on your phone',
    );
    expect(page().querySelector('img.qr')).not.toBeNull();
    expect(status()).toBe('Off');
    expect(auth.user()?.totpEnabled).toBeFalse();
  });

  it('refuses a code that is not six digits without asking the server', async () => {
    await render(false);
    await beginEnrolment();

    await enterCode('12345');

    http.expectNone(TOTP_URLS.confirm);
    expect(page().querySelector('mat-error')?.textContent).toContain('The code has 6 digits.');
  });

  it('offers to start again when the server no longer holds the enrolment (409)', async () => {
    await render(false);
    await beginEnrolment();

    await enterCode('123456');
    http
      .expectOne(TOTP_URLS.confirm)
      .flush({ error: 'Start the enrolment first', code: 'conflict' }, { status: 409, statusText: 'Conflict' });
    await settle(fixture);

    expect(page().querySelector('[data-testid="totp-expired"]')).not.toBeNull();
    expect(page().querySelector('img.qr')).toBeNull();

    await click('Start again');
    http.expectOne({ method: 'POST', url: TOTP_URLS.setup }).flush(enrolmentBody({ secret: 'KRSXG5CTMVRXEZLU' }));
    await settle(fixture);

    expect(page().querySelector('[data-testid="totp-expired"]')).toBeNull();
    expect(page().querySelector('[data-testid="totp-secret"]')?.textContent?.trim()).toBe('KRSX G5CT MVRX EZLU');
  });

  it('explains the sign-in code and trusted devices while it is on', async () => {
    await render(true);

    expect(status()).toBe('On');
    expect(page().textContent).toContain('asks for the 6-digit code from your authenticator app');
    expect(page().textContent).toContain('skip the code on that browser for 30 days');
    expect(() => buttonByText('Set up an authenticator app', page())).toThrow();
  });

  it('turns off only with the right password, saying so when it is wrong', async () => {
    await render(true);
    await click('Turn off');
    const dialog = document.querySelector('mat-dialog-container')!;
    expect(overlayText()).toContain('Turn off two-factor authentication?');
    const password = dialog.querySelector<HTMLInputElement>('input[formcontrolname="password"]');

    typeInto(password, 'not my password');
    await click('Turn off', dialog);
    const wrong = http.expectOne({ method: 'POST', url: TOTP_URLS.disable });
    expect(wrong.request.body).toEqual({ password: 'not my password' });
    wrong.flush(
      { error: 'password: the password is not right', code: 'bad_request', details: { field: 'password' } },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);

    expect(dialog.querySelector('mat-error')?.textContent?.trim()).toBe('The password is not right');
    expect(document.querySelector('mat-dialog-container')).not.toBeNull();
    expect(status()).toBe('On');

    typeInto(password, 'correct horse battery');
    await click('Turn off', dialog);
    const right = http.expectOne({ method: 'POST', url: TOTP_URLS.disable });
    expect(right.request.body).toEqual({ password: 'correct horse battery' });
    right.flush(null, NO_CONTENT);
    await settle(fixture);
    await answerReload(false);
    await fixture.whenStable();

    expect(document.querySelector('mat-dialog-container')).toBeNull();
    expect(auth.user()?.totpEnabled).toBeFalse();
    expect(status()).toBe('Off');
    expect(page().querySelector('[data-testid="totp-notice"]')?.textContent).toContain(
      'Two-factor authentication is off',
    );
  });

  it('says the password is not right even when the 400 names no field', async () => {
    await render(true);
    await click('Turn off');
    const dialog = document.querySelector('mat-dialog-container')!;

    typeInto(dialog.querySelector<HTMLInputElement>('input[formcontrolname="password"]'), 'nope');
    await click('Turn off', dialog);
    http.expectOne(TOTP_URLS.disable).flush({ error: 'Bad request' }, { status: 400, statusText: 'Bad Request' });
    await settle(fixture);

    expect(dialog.querySelector('mat-error')?.textContent?.trim()).toBe('The password is not right');
    await click('Cancel', dialog);
  });

  it('keeps it on when the dialog is cancelled', async () => {
    await render(true);
    await click('Turn off');

    await click('Cancel', document.querySelector('mat-dialog-container')!);
    await fixture.whenStable();

    http.expectNone(TOTP_URLS.disable);
    http.expectNone(AUTH_URLS.me);
    expect(status()).toBe('On');
  });
});
