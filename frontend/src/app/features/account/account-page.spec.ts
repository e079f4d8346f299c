import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, provideForTests, settle, typeInto } from '@console/testing';
import { ACCOUNT_PASSWORD_URL, ACCOUNT_URL } from './account-api';
import { AccountPage } from './account-page';

describe('AccountPage', () => {
  let fixture: ComponentFixture<AccountPage>;
  let http: HttpTestingController;
  let auth: AuthService;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    auth = TestBed.inject(AuthService);
    auth.updateUser(userBody());
    fixture = TestBed.createComponent(AccountPage);
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const input = (name: string) =>
    page().querySelector<HTMLInputElement>(`input[formcontrolname="${name}"], input[name="${name}"]`);

  async function openTab(label: string): Promise<void> {
    Array.from(page().querySelectorAll<HTMLElement>('[role="tab"]'))
      .find((tab) => tab.textContent?.trim() === label)!
      .click();
    await settle(fixture);
  }

  it('saves the profile and updates the signed-in account; an empty username is removed', async () => {
    expect(input('name')!.value).toBe('Ada Lovelace');

    typeInto(input('name'), 'Ada King');
    typeInto(input('username'), '');
    await settle(fixture);
    buttonByText('Save profile', page()).click();
    await settle(fixture);

    const patch = http.expectOne({ method: 'PATCH', url: ACCOUNT_URL });
    expect(patch.request.body).toEqual({
      name: 'Ada King',
      email: 'ada@example.com',
      username: null,
      notifyMinSeverity: 'WARNING',
    });
    patch.flush({ user: userBody({ name: 'Ada King', username: null }) });
    await settle(fixture);

    expect(auth.user()?.name).toBe('Ada King');
  });

  it("shows a taken e-mail address (409) in the server's words", async () => {
    typeInto(input('email'), 'grace@example.com');
    await settle(fixture);
    buttonByText('Save profile', page()).click();
    await settle(fixture);

    http
      .expectOne(ACCOUNT_URL)
      .flush({ error: 'This e-mail address is already used' }, { status: 409, statusText: 'Conflict' });
    await settle(fixture);

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('This e-mail address is already used');
  });

  /** Fills the password form (the new one typed twice) and submits it. */
  async function changePassword(current: string, next: string): Promise<void> {
    typeInto(input('currentPassword'), current);
    typeInto(input('newPassword'), next);
    typeInto(input('confirm'), next);
    buttonByText('Change password', page()).click();
    await settle(fixture);
  }

  it('changes the password, checking the rules against the own e-mail and username first', async () => {
    await openTab('Password');
    await changePassword('the old passphrase', 'ADA@example.com');
    http.expectNone(ACCOUNT_PASSWORD_URL);

    await changePassword('the old passphrase', 'a brand new passphrase');

    const post = http.expectOne({ method: 'POST', url: ACCOUNT_PASSWORD_URL });
    expect(post.request.body).toEqual({ currentPassword: 'the old passphrase', newPassword: 'a brand new passphrase' });
    post.flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);

    expect(input('newPassword')!.value).toBe('');
  });

  it('puts "wrong current password" under that field', async () => {
    await openTab('Password');
    await changePassword('not it at all', 'a brand new passphrase');

    http
      .expectOne(ACCOUNT_PASSWORD_URL)
      .flush(
        { error: 'The current password is wrong', details: { field: 'currentPassword' } },
        { status: 400, statusText: 'Bad Request' },
      );
    await settle(fixture);

    expect(page().querySelector('mat-error')?.textContent).toContain('The current password is wrong');
  });

  it('has a tab for two-factor authentication, no longer "coming soon"', async () => {
    await openTab('Two-factor authentication');

    expect(page().querySelector('argus-two-factor-section')?.textContent).toContain('Set up an authenticator app');
    expect(page().textContent).not.toContain('coming soon');
  });

  it("tells an account of the identity provider only that its password and second factor are the provider's", async () => {
    auth.updateUser(userBody({ source: 'sso' }));
    await settle(fixture);

    await openTab('Two-factor authentication');
    expect(page().querySelector('argus-two-factor-section')).toBeNull();
    expect(page().querySelector('[data-testid="provider-second-factor"]')?.textContent).toContain(
      'your second factor is the one it asks for',
    );

    await openTab('Password');
    expect(input('currentPassword')).toBeNull();
    expect(page().querySelector('[data-testid="provider-password"]')?.textContent).toContain(
      'Argus holds no password for you',
    );
  });

  it('offers the authenticator app to an account with both, for its password sign-ins', async () => {
    auth.updateUser(userBody({ source: 'both' }));
    await settle(fixture);

    await openTab('Two-factor authentication');
    expect(page().querySelector('[data-testid="password-only-second-factor"]')?.textContent).toContain(
      'when you sign in with your password',
    );
    expect(page().querySelector('argus-two-factor-section')?.textContent).toContain('Set up an authenticator app');
  });
});
