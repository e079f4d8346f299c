import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { userBody } from '@console/core/auth-testing';
import { buttonByText, settle, typeInto, renderForTests } from '@console/testing';
import { SMTP_TEST_URL, SMTP_URL, SmtpSettings } from './smtp-api';
import { SmtpPage } from './smtp-page';

function smtpBody(overrides: Partial<SmtpSettings> = {}): SmtpSettings {
  return {
    enabled: true,
    host: 'smtp.example.com',
    port: 587,
    encryption: 'starttls',
    user: 'argus',
    passwordSet: true,
    fromAddress: 'argus@example.com',
    fromName: 'Argus',
    ...overrides,
  };
}

describe('SmtpPage', () => {
  let fixture: ComponentFixture<SmtpPage>;
  let http: HttpTestingController;

  async function render(settings: SmtpSettings): Promise<void> {
    ({ fixture, http } = renderForTests(SmtpPage, userBody({ email: 'ada@example.com' })));
    http.expectOne({ method: 'GET', url: SMTP_URL }).flush(settings);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const password = () => page().querySelector<HTMLInputElement>('[data-testid="smtp-password"]')!;
  const hint = () => page().querySelector('[data-testid="password-hint"]')?.textContent?.trim();
  const clearButton = () => page().querySelector<HTMLButtonElement>('[data-testid="clear-password"]');

  /** Saves and returns the PUT body. */
  async function save(answer: SmtpSettings = smtpBody()): Promise<Record<string, unknown>> {
    buttonByText('Save', page()).click();
    await settle(fixture);
    const put = http.expectOne({ method: 'PUT', url: SMTP_URL });
    put.flush(answer);
    await settle(fixture);
    return put.request.body;
  }

  describe('password (write-only)', () => {
    it('shows "unchanged" when a password is stored, and never a value', async () => {
      await render(smtpBody({ passwordSet: true }));

      expect(password().value).toBe('');
      expect(password().placeholder).toBe('unchanged');
      expect(hint()).toContain('Stored');
      expect(clearButton()).not.toBeNull();
    });

    it('leaves the password out of the save when the field is untouched (keep)', async () => {
      await render(smtpBody());
      typeInto(page().querySelector('input[formcontrolname="host"]'), 'mail.example.com');

      const body = await save();

      expect(body).toEqual({
        enabled: true,
        host: 'mail.example.com',
        port: 587,
        encryption: 'starttls',
        user: 'argus',
        fromAddress: 'argus@example.com',
        fromName: 'Argus',
      });
      expect('password' in body).toBeFalse();
    });

    it('sends a typed password to replace the stored one', async () => {
      await render(smtpBody());
      typeInto(password(), 's3cret app password');
      await settle(fixture);

      expect(clearButton()).withContext('typing replaces; nothing to clear').toBeNull();
      expect((await save())['password']).toBe('s3cret app password');
      expect(password().value).withContext('the field empties after saving').toBe('');
    });

    it('sends "" to remove the stored password after "Clear"', async () => {
      await render(smtpBody());

      clearButton()!.click();
      await settle(fixture);

      expect(password().placeholder).toBe('');
      expect(hint()).toContain('Removed when you save');
      expect((await save(smtpBody({ passwordSet: false })))['password']).toBe('');
      expect(hint()).toBe('No password stored.');
    });

    it('can take back a "Clear" before saving', async () => {
      await render(smtpBody());
      clearButton()!.click();
      await settle(fixture);

      buttonByText('Keep it', page()).click();
      await settle(fixture);

      expect(password().placeholder).toBe('unchanged');
      expect('password' in (await save())).toBeFalse();
    });

    it('offers no "Clear" when no password is stored', async () => {
      await render(smtpBody({ passwordSet: false }));

      expect(password().placeholder).toBe('');
      expect(clearButton()).toBeNull();
      expect(hint()).toBe('No password stored.');
    });
  });

  it('needs host and sender only while mail is on', async () => {
    await render(smtpBody({ enabled: false, host: '', fromAddress: '' }));

    const body = await save(smtpBody({ enabled: false, host: '', fromAddress: '' }));
    expect(body['enabled']).toBeFalse();

    page().querySelector<HTMLButtonElement>('mat-slide-toggle button')!.click();
    await settle(fixture);
    buttonByText('Save', page()).click();
    await settle(fixture);

    http.expectNone({ method: 'PUT' });
    expect(page().textContent).toContain('Enter the host name of the SMTP server.');
  });

  describe('test mail', () => {
    const sendButton = () => page().querySelector<HTMLButtonElement>('[data-testid="send-test"]')!;
    const result = () => page().querySelector('[data-testid="test-result"]')?.textContent?.trim();

    it('waits until the changes are saved', async () => {
      await render(smtpBody());
      expect(sendButton().disabled).toBeFalse();

      typeInto(page().querySelector('input[formcontrolname="fromName"]'), 'Monitoring');
      await settle(fixture);

      expect(sendButton().disabled).toBeTrue();
      expect(page().textContent).toContain('Save your changes first');
    });

    it('reports a sent message (to the own address by default)', async () => {
      await render(smtpBody());

      sendButton().click();
      await settle(fixture);
      const request = http.expectOne({ method: 'POST', url: SMTP_TEST_URL });
      expect(request.request.body).toEqual({});
      request.flush({ sent: true });
      await settle(fixture);

      expect(result()).toContain('Test mail sent to ada@example.com');
    });

    it("shows the server's reason when sending failed", async () => {
      await render(smtpBody());
      typeInto(page().querySelector('input[type="email"]:not([formcontrolname])'), 'ops@example.com');

      sendButton().click();
      await settle(fixture);
      const request = http.expectOne(SMTP_TEST_URL);
      expect(request.request.body).toEqual({ to: 'ops@example.com' });
      request.flush(
        { error: 'Connection to smtp.example.com:587 refused' },
        { status: 502, statusText: 'Bad Gateway' },
      );
      await settle(fixture);

      expect(result()).toBe('Connection to smtp.example.com:587 refused');
    });
  });
});
