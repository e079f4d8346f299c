import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { MatDialog } from '@angular/material/dialog';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, provideForTests } from '@console/testing';
import { CLUSTERS_URL, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { EVENT_RULES_URL, EventRule } from '@console/shared/rules/rules-api';
import { SYSTEMS_URL } from '@console/shared/rules/scope-targets';
import { EventRuleDialog, EventRuleDialogData } from './event-rule-dialog';

const reboot: EventRule = {
  id: 7,
  key: 'system.reboot',
  name: 'Rebooted',
  severity: 'INFO',
  eventType: null,
  messagePattern: null,
  minEventSeverity: null,
  derived: 'reboot',
  holdSeconds: 1800,
  enabled: true,
  scope: null,
  createdAt: '',
  updatedAt: '',
};

describe('EventRuleDialog', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  const turn = () => new Promise((resolve) => setTimeout(resolve, 20));
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;

  async function open(data: EventRuleDialogData) {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody({ role: 'OPERATOR', customerIds: [10] }));
    const ref = TestBed.inject(MatDialog).open(EventRuleDialog, { data });
    await turn();
    return ref;
  }

  it('overrides a global rule at a customer picked from those the account may write at', async () => {
    const ref = await open({ overrideOf: reboot });
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
      { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
      { id: 20, name: 'Globex', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
    ]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([]);
    (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([]);
    await turn();
    const closed = jasmine.createSpy('closed');
    ref.afterClosed().subscribe(closed);
    expect(dialog().querySelector('h2')?.textContent?.trim()).toBe('Override system.reboot');

    buttonByText('Create rule', dialog()).click();
    await turn();
    http.expectNone({ method: 'POST', url: EVENT_RULES_URL });
    expect(dialog().textContent).toContain('Pick where the rule applies.');

    (dialog().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    expect(Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim())).toEqual(['Acme']);
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    buttonByText('Create rule', dialog()).click();
    const create = await nextRequest(http, { method: 'POST', url: EVENT_RULES_URL });
    expect(create.request.body).toEqual(
      jasmine.objectContaining({ key: 'system.reboot', scope: { type: 'customer', id: 10 }, derived: 'reboot' }),
    );
    const saved = { ...reboot, id: 8, scope: { type: 'customer', id: 10, customerId: 10, name: 'Acme' } };
    create.flush(saved);
    await turn();
    expect(closed).toHaveBeenCalledWith(saved);
  });

  it('edits a rule without asking for its key or place again', async () => {
    await open({ rule: reboot });
    expect(dialog().querySelector('h2')?.textContent?.trim()).toBe('Edit system.reboot');
    expect(dialog().querySelector('argus-rule-scope-fields')).toBeNull();
    http.expectNone(CUSTOMERS_URL);
  });
});
