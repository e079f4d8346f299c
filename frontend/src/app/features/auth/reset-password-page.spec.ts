import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { AUTH_URLS } from '@console/core/auth';
import { provideForTests, settle, typeInto } from '@console/testing';
import { ResetPasswordPage } from './reset-password-page';

describe('ResetPasswordPage', () => {
  let fixture: ComponentFixture<ResetPasswordPage>;
  let http: HttpTestingController;
  let navigate: jasmine.Spy;

  async function render(token?: string): Promise<void> {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    navigate = spyOn(TestBed.inject(Router), 'navigate').and.resolveTo(true);
    fixture = TestBed.createComponent(ResetPasswordPage);
    if (token) fixture.componentRef.setInput('token', token);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  async function choose(password: string): Promise<void> {
    typeInto(page().querySelector('input[name="password"]'), password);
    typeInto(page().querySelector('input[name="confirm"]'), password);
    page().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await settle(fixture);
  }

  it('sets the new password and sends the user to sign in with a message', async () => {
    await render('reset-token');
    await choose('a long enough passphrase');

    const request = http.expectOne({ method: 'POST', url: AUTH_URLS.reset });
    expect(request.request.body).toEqual({ token: 'reset-token', password: 'a long enough passphrase' });
    request.flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);

    expect(navigate).toHaveBeenCalledWith(['/login'], { queryParams: { notice: 'reset' } });
  });

  it("offers a new link when the server answers 'reset_link_invalid'", async () => {
    await render('old-token');
    await choose('a long enough passphrase');
    http
      .expectOne(AUTH_URLS.reset)
      .flush(
        { error: 'This reset link is invalid or has expired', code: 'reset_link_invalid' },
        { status: 400, statusText: 'Bad Request' },
      );
    await settle(fixture);

    const alert = page().querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain('This reset link is invalid or has expired');
    expect(alert.querySelector('a')?.getAttribute('href')).toBe('/forgot-password');
  });

  it('offers no new link for a password the server refuses: that is fixed in this form', async () => {
    await render('reset-token');
    await choose('a long enough passphrase');
    http.expectOne(AUTH_URLS.reset).flush(
      {
        error: 'password: must not be your e-mail address or username',
        code: 'bad_request',
        details: { field: 'password' },
      },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);

    const alert = page().querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain('must not be your e-mail address');
    expect(alert.querySelector('a')).toBeNull();
  });

  it('checks the length rules before asking the server', async () => {
    await render('reset-token');
    await choose('too short');

    http.expectNone(AUTH_URLS.reset);
  });

  it('explains a link without token', async () => {
    await render();

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('This reset link is incomplete');
    expect(page().querySelector('form')).toBeNull();
  });
});
