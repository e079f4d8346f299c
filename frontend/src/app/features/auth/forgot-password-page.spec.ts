import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { AUTH_URLS } from '@console/core/auth';
import { renderForTests, settle, typeInto } from '@console/testing';
import { ForgotPasswordPage } from './forgot-password-page';

describe('ForgotPasswordPage', () => {
  let fixture: ComponentFixture<ForgotPasswordPage>;
  let http: HttpTestingController;

  beforeEach(async () => {
    ({ fixture, http } = renderForTests(ForgotPasswordPage));
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  async function ask(email: string): Promise<void> {
    typeInto(page().querySelector('input'), email);
    page().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await settle(fixture);
  }

  it('answers the same whether or not the account exists', async () => {
    await ask('someone@example.com');
    const request = http.expectOne({ method: 'POST', url: AUTH_URLS.forgot });
    expect(request.request.body).toEqual({ email: 'someone@example.com' });
    request.flush({}, { status: 202, statusText: 'Accepted' });
    await settle(fixture);

    expect(page().querySelector('[role="status"]')?.textContent).toContain(
      'If an account exists for someone@example.com, a link is on its way',
    );
  });

  it('says so when mail is not configured', async () => {
    await ask('someone@example.com');
    http
      .expectOne(AUTH_URLS.forgot)
      .flush({ error: 'Mail is not configured' }, { status: 503, statusText: 'Service Unavailable' });
    await settle(fixture);

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('Mail is not configured');
  });
});
