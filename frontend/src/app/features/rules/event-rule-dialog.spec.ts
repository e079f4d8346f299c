import { HttpTestingController } from '@angular/common/http/testing';

import { userBody } from '@console/core/auth-testing';
import { CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { EVENT_RULES_URL } from '@console/shared/rules/rules-api';
import { eventRuleBody, flushScopeTargets } from '@console/shared/rules/rules-testing';
import { buttonByText, dialogElement, nextRequest, openDialogForTests, turn } from '@console/testing';
import { EventRuleDialog, EventRuleDialogData } from './event-rule-dialog';

const reboot = eventRuleBody({ id: 7, key: 'system.reboot', name: 'Rebooted', eventType: null });

describe('EventRuleDialog', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function open(data: EventRuleDialogData) {
    const opened = await openDialogForTests(EventRuleDialog, data, userBody({ role: 'OPERATOR', customerIds: [10] }));
    http = opened.http;
    return opened.ref;
  }

  it('overrides a global rule at a customer picked from those the account may write at', async () => {
    const ref = await open({ overrideOf: reboot });
    await flushScopeTargets(http);
    await turn();
    const closed = jasmine.createSpy('closed');
    ref.afterClosed().subscribe(closed);
    expect(dialogElement().querySelector('h2')?.textContent?.trim()).toBe('Override system.reboot');

    buttonByText('Create rule', dialogElement()).click();
    await turn();
    http.expectNone({ method: 'POST', url: EVENT_RULES_URL });
    expect(dialogElement().textContent).toContain('Pick where the rule applies.');

    (dialogElement().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    expect(Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim())).toEqual(['Acme']);
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    buttonByText('Create rule', dialogElement()).click();
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
    expect(dialogElement().querySelector('h2')?.textContent?.trim()).toBe('Edit system.reboot');
    expect(dialogElement().querySelector('argus-rule-scope-fields')).toBeNull();
    http.expectNone(CUSTOMERS_URL);
  });
});
