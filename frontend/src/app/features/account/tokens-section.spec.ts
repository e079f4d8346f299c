import { Clipboard } from '@angular/cdk/clipboard';
import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { CSRF_HEADER } from '@console/core/csrf-interceptor';
import { buttonByText, overlayText, renderForTests, settle, typeInto } from '@console/testing';
import { ApiToken, TOKENS_URL } from './tokens-api';
import { TokensSection } from './tokens-section';

function tokenBody(overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: 1,
    name: 'backup script',
    createdAt: '2026-11-01T10:00:00.000Z',
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    status: 'active',
    ...overrides,
  };
}

const SECRET = 'argus_4fQz8yW2kLp0aBcDeFgHiJkLmNoPqRsTuVwXyZ01234';

describe('TokensSection', () => {
  let fixture: ComponentFixture<TokensSection>;
  let http: HttpTestingController;

  beforeEach(async () => {
    ({ fixture, http } = renderForTests(TokensSection));
    await settle(fixture);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  async function answerList(tokens: ApiToken[]): Promise<void> {
    http.expectOne({ method: 'GET', url: TOKENS_URL }).flush(tokens);
    await settle(fixture);
  }

  it('lists tokens with their status, dates and "Never" for what has not happened', async () => {
    await answerList([
      tokenBody({ name: 'ci', lastUsedAt: '2026-11-21T09:30:00.000Z' }),
      tokenBody({ id: 2, name: 'old', status: 'expired', expiresAt: '2026-10-01T00:00:00.000Z' }),
      tokenBody({ id: 3, name: 'laptop', status: 'revoked', revokedAt: '2026-08-02T10:00:00.000Z' }),
    ]);

    const rows = Array.from(page().querySelectorAll('tr[mat-row]'));
    expect(rows.map((row) => row.querySelector('[data-testid="token-status"]')?.textContent?.trim())).toEqual([
      'active',
      'expired',
      'revoked',
    ]);
    expect(rows[0].textContent).toContain('21 Nov 2026');
    expect(rows[0].textContent).toContain('Never'); // no expiry
    expect(rows[1].textContent).toContain('1 Oct 2026');
    // Only an active token can be revoked.
    expect(rows.map((row) => !!row.querySelector('button[aria-label^="Revoke"]'))).toEqual([true, false, false]);
  });

  it('says when there are no tokens', async () => {
    await answerList([]);

    expect(page().querySelector('[data-testid="no-tokens"]')).not.toBeNull();
  });

  it('shows the value of a new token once, with a copy button, and never again', async () => {
    await answerList([]);

    buttonByText('Create token', page()).click();
    await settle(fixture);
    typeInto(document.querySelector<HTMLInputElement>('mat-dialog-container input[formcontrolname="name"]'), 'grafana');
    buttonByText('Create token', document.querySelector('mat-dialog-container')!).click();
    await settle(fixture);

    const create = http.expectOne({ method: 'POST', url: TOKENS_URL });
    expect(create.request.body).toEqual({ name: 'grafana' });
    create.flush({ ...tokenBody({ id: 9, name: 'grafana' }), token: SECRET }, { status: 201, statusText: 'Created' });
    await answerList([tokenBody({ id: 9, name: 'grafana' })]);

    expect(document.querySelector('[data-testid="token-value"]')?.textContent?.trim()).toBe(SECRET);
    expect(overlayText()).toContain("You won't see it again");
    expect(page().textContent).toContain('grafana');

    const clipboard = spyOn(TestBed.inject(Clipboard), 'copy').and.returnValue(true);
    const copy = buttonByText('Copy');
    copy.click();
    await settle(fixture);
    expect(clipboard).toHaveBeenCalledWith(SECRET);
    expect(copy.textContent).toContain('Copied');

    buttonByText('Done').click();
    await settle(fixture);
    await fixture.whenStable();

    expect(document.querySelector('mat-dialog-container')).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('sends the chosen expiry as the end of that day', async () => {
    await answerList([]);
    buttonByText('Create token', page()).click();
    await settle(fixture);

    const dialog = document.querySelector('mat-dialog-container')!;
    typeInto(dialog.querySelector<HTMLInputElement>('input[formcontrolname="name"]'), 'ci');
    typeInto(dialog.querySelector<HTMLInputElement>('input[formcontrolname="expires"]'), '12/31/2099');
    buttonByText('Create token', dialog).click();
    await settle(fixture);

    const create = http.expectOne({ method: 'POST', url: TOKENS_URL });
    expect(new Date(create.request.body.expiresAt)).toEqual(new Date(2099, 11, 31, 23, 59, 59, 999));
    create.flush({ ...tokenBody({ name: 'ci' }), token: SECRET }, { status: 201, statusText: 'Created' });
    await answerList([tokenBody({ name: 'ci' })]);
    buttonByText('Done').click();
    await settle(fixture);
  });

  it('revokes a token after confirmation; it stays listed as revoked', async () => {
    await answerList([tokenBody()]);

    page().querySelector<HTMLButtonElement>('button[aria-label="Revoke backup script"]')!.click();
    await settle(fixture);
    expect(overlayText()).toContain('Revoke “backup script”?');
    buttonByText('Revoke').click();
    await settle(fixture);

    const revoke = http.expectOne({ method: 'DELETE', url: `${TOKENS_URL}/1` });
    revoke.flush(tokenBody({ status: 'revoked' }));
    await answerList([tokenBody({ status: 'revoked' })]);

    expect(page().querySelector('[data-testid="token-status"]')?.textContent?.trim()).toBe('revoked');
    expect(overlayText()).toContain('Token “backup script” revoked');
    expect(revoke.request.headers.has(CSRF_HEADER)).toBeFalse(); // no session in this spec
  });

  it('does nothing when the revocation is cancelled', async () => {
    await answerList([tokenBody()]);

    page().querySelector<HTMLButtonElement>('button[aria-label="Revoke backup script"]')!.click();
    await settle(fixture);
    buttonByText('Cancel').click();
    await settle(fixture);

    http.expectNone({ method: 'DELETE' });
  });
});
