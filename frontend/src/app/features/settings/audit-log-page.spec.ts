import { HttpTestingController, TestRequest } from '@angular/common/http/testing';

import { CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { buttonByText, nextRequest, renderForTests, settle, typeInto } from '@console/testing';
import { customerBody } from '@console/shared/customers/customers-testing';
import { AUDIT_LOG_URL, AuditItem, auditParams, changeLines, NO_FILTERS } from './audit-log-api';
import { AuditLogPage } from './audit-log-page';

function item(id: number, overrides: Partial<AuditItem> = {}): AuditItem {
  return {
    id,
    at: '2026-11-25T10:00:00.000Z',
    actor: { type: 'user', id: 3, name: 'ada@example.com' },
    address: '203.0.113.7',
    action: 'customer.update',
    target: { type: 'customer', id: '10' },
    customerId: 10,
    before: { notes: 'first' },
    after: { notes: 'second' },
    ...overrides,
  };
}

describe('AuditLogPage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  const auditRequest = () => nextRequest(http, (r) => r.url === AUDIT_LOG_URL);

  async function render() {
    const { fixture, http: backend } = renderForTests(AuditLogPage);
    http = backend;
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([customerBody()]);
    return fixture;
  }

  async function answer(
    fixture: Awaited<ReturnType<typeof render>>,
    request: TestRequest,
    items: AuditItem[],
    next: string | null,
  ) {
    request.flush({ items, nextCursor: next });
    await settle(fixture);
    return fixture.nativeElement as HTMLElement;
  }

  it('shows each change with its actor, address, target, customer and changed fields', async () => {
    const fixture = await render();
    const first = await auditRequest();
    expect(first.request.params.get('limit')).toBe('50');
    expect(first.request.params.has('cursor')).toBeFalse();
    const page = await answer(
      fixture,
      first,
      [
        item(2),
        item(1, {
          actor: { type: 'system', id: null, name: 'system' },
          address: null,
          action: 'password.reset',
          target: { type: 'user', id: '3' },
          customerId: null,
          before: null,
          after: { password: '[sealed]' },
        }),
      ],
      null,
    );

    const rows = Array.from(page.querySelectorAll('[data-testid="audit-row"]'));
    expect(rows.length).toBe(2);
    expect(rows[0].textContent).toContain('ada@example.com');
    expect(rows[0].textContent).toContain('User #3');
    expect(rows[0].textContent).toContain('203.0.113.7');
    expect(rows[0].textContent).toContain('customer #10');
    expect(rows[0].textContent).toContain('Acme');
    expect(rows[0].textContent).toContain('notes: "first" → "second"');
    expect(rows[1].textContent).toContain('System');
    expect(rows[1].textContent).toContain('password: "[sealed]"');
    expect(page.querySelector('[data-testid="load-more"]')).toBeNull();
  });

  it('applies the filters on submit and loads more by cursor, appending', async () => {
    const fixture = await render();
    let page = await answer(fixture, await auditRequest(), [item(5)], null);

    typeInto(page.querySelector('[data-testid="actor-filter"]'), 'ada');
    typeInto(page.querySelector('[data-testid="action-filter"]'), 'cluster');
    typeInto(page.querySelector('[data-testid="target-filter"]'), 'cluster:4');
    await settle(fixture);
    buttonByText('Apply', page).click();
    const filtered = await auditRequest();
    expect(filtered.request.params.get('actor')).toBe('ada');
    expect(filtered.request.params.get('action')).toBe('cluster');
    expect(filtered.request.params.get('target')).toBe('cluster:4');
    page = await answer(fixture, filtered, [item(4, { action: 'cluster.update' })], 'NEXT');

    (page.querySelector('[data-testid="load-more"]') as HTMLButtonElement).click();
    const more = await auditRequest();
    expect(more.request.params.get('cursor')).toBe('NEXT');
    expect(more.request.params.get('actor')).toBe('ada');
    page = await answer(fixture, more, [item(3, { action: 'cluster.create' })], null);

    const actions = Array.from(page.querySelectorAll('[data-testid="action"]'), (cell) => cell.textContent?.trim());
    expect(actions).toEqual(['cluster.update', 'cluster.create']);
    expect(page.querySelector('[data-testid="load-more"]')).toBeNull();
  });

  it('says so when nothing matches, and shows the error of a refused request', async () => {
    const fixture = await render();
    let page = await answer(fixture, await auditRequest(), [], null);
    expect(page.querySelector('[data-testid="empty"]')?.textContent).toContain('Nothing recorded');

    buttonByText('Apply', page).click();
    (await auditRequest()).flush(
      { error: 'from: Invalid ISO datetime', code: 'bad_request' },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    page = fixture.nativeElement;
    expect(page.querySelector('[role="alert"]')?.textContent).toContain('from: Invalid ISO datetime');
  });
});

describe('audit log query and changes', () => {
  it('sends only the filters that are set, times as ISO 8601', () => {
    const params = auditParams({ ...NO_FILTERS, customer: 10, from: '2026-11-25T10:00', actor: '  ' }, 'C');
    expect(params.keys().sort()).toEqual(['cursor', 'customer', 'from', 'limit']);
    expect(params.get('from')).toBe(new Date('2026-11-25T10:00').toISOString());
  });

  it('writes a create, an update and a delete as one line per field', () => {
    expect(changeLines({ before: null, after: { name: 'Blue' } })).toEqual(['name: "Blue"']);
    expect(changeLines({ before: { name: 'Blue' }, after: { name: 'Green' } })).toEqual(['name: "Blue" → "Green"']);
    expect(changeLines({ before: { name: 'Green' }, after: null })).toEqual(['name: "Green" (removed)']);
  });
});
