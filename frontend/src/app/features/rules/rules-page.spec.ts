import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, settle, renderForTests } from '@console/testing';
import { ALERT_RULES_URL, EVENT_RULES_URL } from '@console/shared/rules/rules-api';
import { alertRuleBody, eventRuleBody, previewBody } from '@console/shared/rules/rules-testing';
import { RulesPage } from './rules-page';

const alertRule = alertRuleBody;
const reboot = eventRuleBody();

describe('RulesPage', () => {
  let fixture: ComponentFixture<RulesPage>;
  let http: HttpTestingController;

  const global = alertRule();
  const override = alertRule({
    id: 2,
    threshold: 95,
    scope: { type: 'customer', id: 10, customerId: 10, name: 'Acme' },
  });
  const offline = alertRule({
    id: 3,
    key: 'system.offline',
    name: 'System offline',
    kind: 'offline',
    metric: null,
    operator: null,
    threshold: null,
    forSeconds: 0,
    severity: 'CRITICAL',
  });

  async function render(user: User): Promise<void> {
    ({ fixture, http } = renderForTests(RulesPage, user));
    await settle(fixture);
    await answer();
  }

  async function answer(): Promise<void> {
    (await nextRequest(http, { method: 'GET', url: ALERT_RULES_URL })).flush([override, offline, global]);
    (await nextRequest(http, { method: 'GET', url: EVENT_RULES_URL })).flush([reboot]);
    await settle(fixture);
  }

  afterEach(() => http?.verify());
  const page = (): HTMLElement => fixture.nativeElement;
  const rows = () => Array.from(page().querySelectorAll<HTMLElement>('[data-testid="alert-rule"]'));

  it('lists each global rule followed by its overrides, with condition and scope', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }));

    expect(rows().map((r) => r.querySelector('.key')?.textContent)).toEqual(['system.offline', 'cpu.high', 'cpu.high']);
    expect(rows()[0].textContent).toContain('not seen for 2 min');
    expect(rows()[1].textContent).toContain('cpu.usage_pct > 85 for 10 min');
    expect(rows()[1].textContent).toContain('Everywhere');
    expect(rows()[2].classList).toContain('override');
    expect(rows()[2].textContent).toContain('Customer: Acme');
    expect(page().querySelector('[data-testid="event-rule"]')?.textContent).toContain('reboot (uptime went down)');
    expect(page().querySelectorAll('mat-slide-toggle').length).withContext('a viewer toggles nothing').toBe(0);
    expect(page().textContent).not.toContain('New alert rule');
  });

  it('enables and disables a rule with its toggle', async () => {
    await render(userBody());
    (rows()[1].querySelector('[data-testid="enabled-toggle"] button') as HTMLElement).click();
    const patch = await nextRequest(http, { method: 'PATCH', url: `${ALERT_RULES_URL}/1` });
    expect(patch.request.body).toEqual({ enabled: false });
    patch.flush({ ...global, enabled: false });
    await answer();
  });

  it('lets an operator toggle its overrides only and offers to override global rules', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }));
    expect(rows()[1].querySelector('mat-slide-toggle')).toBeNull();
    expect(rows()[2].querySelector('mat-slide-toggle')).not.toBeNull();
    expect(buttonByText('Override', rows()[1])).toBeTruthy();
    expect(page().textContent).not.toContain('New alert rule');
  });

  it('previews which systems a rule would fire on now', async () => {
    await render(userBody());
    buttonByText('Preview', rows()[1]).click();
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: `${ALERT_RULES_URL}/1/preview` })).flush(previewBody());
    await settle(fixture);
    const preview = page().querySelector('[data-testid="preview"]')!;
    // shown where it was asked for: in the row right under the one whose Preview was pressed
    expect(rows()[1].nextElementSibling?.contains(preview)).toBeTrue();
    expect(page().querySelectorAll('[data-testid="preview"]').length).toBe(1);
    expect(preview.textContent).toContain('"for" is not considered');
    expect(preview.querySelector('[data-testid="preview-system"]')?.textContent).toContain('web-01 (Acme): 97');
  });
});
