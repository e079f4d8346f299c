import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { AUTH_URLS, AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, overlayText, settle, typeInto, renderForTests } from '@console/testing';
import { CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { UserRow, USERS_URL } from './users-api';
import { UsersPage } from './users-page';

/** An account as the list shows it: Ada, an administrator with two-factor sign-in. */
function row(overrides: Partial<UserRow> = {}): UserRow {
  return { ...userBody({ totpEnabled: true }), source: 'local', breakGlass: false, lastSignInAt: null, ...overrides };
}

const LAST_ADMIN = 'The last active administrator cannot be deleted, disabled or demoted';

describe('UsersPage', () => {
  let fixture: ComponentFixture<UsersPage>;
  let http: HttpTestingController;

  const ada = row({ breakGlass: true });
  const grace = row({
    id: 2,
    email: 'grace@example.com',
    username: null,
    name: 'Grace Hopper',
    role: 'OPERATOR',
    totpEnabled: false,
    customerIds: [11, 12],
    source: 'sso',
    lastSignInAt: new Date(Date.now() - 3 * 3_600_000).toISOString(),
  });
  const alan = row({
    id: 3,
    email: 'alan@example.com',
    username: 'alan',
    name: 'Alan Turing',
    role: 'VIEWER',
    disabled: true,
    totpEnabled: false,
    source: 'both',
  });

  beforeEach(async () => {
    ({ fixture, http } = renderForTests(UsersPage, userBody({ id: 1 })));
    await settle(fixture);
    await answerList([ada, grace, alan]);
  });

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const dialog = () => document.querySelector('mat-dialog-container')!;

  async function answerList(users: UserRow[]): Promise<void> {
    http.expectOne({ method: 'GET', url: USERS_URL }).flush(users);
    await settle(fixture);
  }

  async function click(button: HTMLButtonElement | null): Promise<void> {
    button!.click();
    await settle(fixture);
  }

  it('lists the accounts with role, 2FA, status and number of customers', () => {
    const cells = Array.from(page().querySelectorAll('tr[mat-row]'), (tr) =>
      Array.from(tr.querySelectorAll('td'), (td) => td.textContent?.trim()).slice(0, 7),
    );

    expect(cells).toEqual([
      ['Ada Lovelace (you)', 'ada@example.com', 'ada', 'Admin', 'On', 'Active', 'All'],
      ['Grace Hopper', 'grace@example.com', '—', 'Operator', 'Off', 'Active', '2'],
      ['Alan Turing', 'alan@example.com', 'alan', 'Viewer', 'Off', 'Disabled', '0'],
    ]);
  });

  it('says how each account signs in, which are break-glass, and when each last signed in', async () => {
    const cells = Array.from(page().querySelectorAll('tr[mat-row]'), (tr) =>
      Array.from(tr.querySelectorAll('td'), (td) => td.textContent?.trim().replace(/\s+/g, ' ')).slice(7, 9),
    );
    expect(cells).toEqual([
      ['Local Break-glass', 'Never'],
      ['SSO', '3 h ago'],
      ['Local + SSO', 'Never'],
    ]);
  });

  /** Answers the `method` request on Ada's account with the server's 409; the snack bar says it. */
  async function refuseAsLastAdmin(method: 'DELETE' | 'PATCH'): Promise<void> {
    http
      .expectOne({ method, url: `${USERS_URL}/1` })
      .flush({ error: LAST_ADMIN }, { status: 409, statusText: 'Conflict' });
    await settle(fixture);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain(LAST_ADMIN);
  }

  it("shows the server's 409 in a snack bar when the last administrator cannot be deleted", async () => {
    await click(page().querySelector('button[aria-label="Delete Ada Lovelace"]'));
    expect(overlayText()).toContain('you will be signed out');
    await click(buttonByText('Delete', dialog()));

    await refuseAsLastAdmin('DELETE');
    expect(page().querySelectorAll('tr[mat-row]').length).toBe(3);
  });

  it('deletes an account after confirmation and reloads the list', async () => {
    await click(page().querySelector('button[aria-label="Delete Alan Turing"]'));
    await click(buttonByText('Delete', dialog()));

    http.expectOne({ method: 'DELETE', url: `${USERS_URL}/3` }).flush(null, { status: 204, statusText: 'No Content' });
    await answerList([ada, grace]);

    expect(page().querySelectorAll('tr[mat-row]').length).toBe(2);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Alan Turing deleted');
  });

  describe('edit dialog', () => {
    async function openEdit(name: string): Promise<void> {
      await click(page().querySelector(`button[aria-label="Edit ${name}"]`));
    }

    async function chooseRole(label: string): Promise<void> {
      await click(dialog().querySelector('mat-select[formcontrolname="role"]') as unknown as HTMLButtonElement);
      const option = Array.from(document.querySelectorAll<HTMLElement>('mat-option')).find(
        (o) => o.textContent?.trim() === label,
      );
      option!.click();
      await settle(fixture);
    }

    it('keeps the grants untouched while the API has no customers (404)', async () => {
      await openEdit('Grace Hopper');
      http.expectOne(CUSTOMERS_URL).flush({ error: 'Not found' }, { status: 404, statusText: 'Not Found' });
      await settle(fixture);

      expect(dialog().querySelector('[data-testid="grants-note"]')?.textContent).toContain(
        'Customers come with the fleet pages',
      );

      await chooseRole('Viewer');
      await click(buttonByText('Save', dialog()));

      const patch = http.expectOne({ method: 'PATCH', url: `${USERS_URL}/2` });
      expect(patch.request.body).toEqual({ role: 'VIEWER' });
      patch.flush({ user: { ...grace, role: 'VIEWER' } });
      await answerList([ada, { ...grace, role: 'VIEWER' }, alan]);

      expect(document.querySelector('mat-dialog-container')).toBeNull();
    });

    it('grants customers from the list the API gives', async () => {
      await openEdit('Grace Hopper');
      http.expectOne(CUSTOMERS_URL).flush([
        { id: 11, name: 'Acme' },
        { id: 12, name: 'Globex' },
        { id: 13, name: 'Initech' },
      ]);
      await settle(fixture);

      await click(dialog().querySelector('mat-select[formcontrolname="customerIds"]') as unknown as HTMLButtonElement);
      Array.from(document.querySelectorAll<HTMLElement>('mat-option'))
        .find((o) => o.textContent?.trim() === 'Initech')!
        .click();
      await settle(fixture);
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
      await click(buttonByText('Save', dialog()));

      const patch = http.expectOne({ method: 'PATCH', url: `${USERS_URL}/2` });
      expect(patch.request.body).toEqual({ customerIds: [11, 12, 13] });
      patch.flush({ user: { ...grace, customerIds: [11, 12, 13] } });
      await answerList([ada, grace, alan]);
    });

    it("shows the server's 409 in a snack bar and keeps the dialog open", async () => {
      await openEdit('Ada Lovelace');
      http.expectOne(CUSTOMERS_URL).flush([]);
      await settle(fixture);

      await chooseRole('Operator');
      await click(buttonByText('Save', dialog()));
      await refuseAsLastAdmin('PATCH');
      expect(document.querySelector('mat-dialog-container')).not.toBeNull();
    });

    it('refreshes the own account after editing it, and leaves the page after stepping down', async () => {
      const navigate = spyOn(TestBed.inject(Router), 'navigateByUrl').and.resolveTo(true);
      await openEdit('Ada Lovelace');
      http.expectOne(CUSTOMERS_URL).flush([]);
      await settle(fixture);

      await chooseRole('Viewer');
      await click(buttonByText('Save', dialog()));
      http.expectOne({ method: 'PATCH', url: `${USERS_URL}/1` }).flush({ user: { ...ada, role: 'VIEWER' } });
      await answerList([{ ...ada, role: 'VIEWER' }, grace]);
      http.expectOne(AUTH_URLS.me).flush({ user: userBody({ id: 1, role: 'VIEWER' }) });
      http.expectOne(AUTH_URLS.csrf).flush({ csrfToken: 't' });

      expect(TestBed.inject(AuthService).isAdmin()).toBeFalse();
      expect(navigate).toHaveBeenCalledWith('/');
    });

    it('marks an administrator break-glass or not, and offers it to administrators only', async () => {
      await openEdit('Ada Lovelace');
      http.expectOne(CUSTOMERS_URL).flush([]);
      await settle(fixture);
      const toggle = () =>
        dialog().querySelector<HTMLButtonElement>('mat-slide-toggle[formcontrolname="breakGlass"] button');
      expect(toggle()?.getAttribute('aria-checked')).toBe('true');
      await click(toggle());
      await click(buttonByText('Save', dialog()));

      const patch = http.expectOne({ method: 'PATCH', url: `${USERS_URL}/1` });
      expect(patch.request.body).toEqual({ breakGlass: false });
      patch.flush({ user: ada });
      await answerList([{ ...ada, breakGlass: false }, grace, alan]);
      http.expectOne(AUTH_URLS.me).flush({ user: userBody({ id: 1 }) });
      http.expectOne(AUTH_URLS.csrf).flush({ csrfToken: 't' });
      await settle(fixture);

      await openEdit('Grace Hopper');
      http.expectOne(CUSTOMERS_URL).flush([]);
      await settle(fixture);
      expect(toggle()).toBeNull();
    });

    it('sends nothing when nothing changed', async () => {
      await openEdit('Alan Turing');
      http.expectOne(CUSTOMERS_URL).flush([]);
      await settle(fixture);

      await click(buttonByText('Save', dialog()));

      http.expectNone({ method: 'PATCH' });
      expect(document.querySelector('mat-dialog-container')).toBeNull();
    });
  });

  it('adds an account with an initial password that follows the rules', async () => {
    await click(buttonByText('Add user', page()));
    http.expectOne(CUSTOMERS_URL).flush({ error: 'Not found' }, { status: 404, statusText: 'Not Found' });
    await settle(fixture);

    const input = (name: string) =>
      dialog().querySelector<HTMLInputElement>(`input[formcontrolname="${name}"], input[name="${name}"]`);
    typeInto(input('name'), 'Edsger Dijkstra');
    typeInto(input('email'), 'edsger@example.com');
    typeInto(input('password'), 'edsger@example.com');
    await click(buttonByText('Add user', dialog()));
    http.expectNone({ method: 'POST', url: USERS_URL });

    typeInto(input('password'), 'a long enough passphrase');
    await click(buttonByText('Add user', dialog()));

    const post = http.expectOne({ method: 'POST', url: USERS_URL });
    expect(post.request.body).toEqual({
      name: 'Edsger Dijkstra',
      email: 'edsger@example.com',
      role: 'VIEWER',
      password: 'a long enough passphrase',
    });
    const created = row({ id: 4, name: 'Edsger Dijkstra', email: 'edsger@example.com', role: 'VIEWER' });
    post.flush({ user: created }, { status: 201, statusText: 'Created' });
    await answerList([ada, grace, alan, created]);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Edsger Dijkstra added');
  });
});
