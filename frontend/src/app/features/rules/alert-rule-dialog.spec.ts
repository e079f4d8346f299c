import { HttpTestingController } from '@angular/common/http/testing';

import { userBody } from '@console/core/auth-testing';
import { ALERT_RULES_URL, AlertRule } from '@console/shared/rules/rules-api';
import { alertRuleBody, flushScopeTargets, previewBody } from '@console/shared/rules/rules-testing';
import { buttonByText, dialogElement, nextRequest, openDialogForTests, turn, typeInto } from '@console/testing';
import { AlertRuleDialog, AlertRuleDialogData } from './alert-rule-dialog';

const cpuHigh = alertRuleBody();

describe('AlertRuleDialog', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function open(data: AlertRuleDialogData) {
    const opened = await openDialogForTests(AlertRuleDialog, data, userBody({ role: 'OPERATOR', customerIds: [10] }));
    http = opened.http;
    await flushScopeTargets(http);
    await turn();
    return opened.ref;
  }

  it('overrides a global rule at a customer, previewing the edited condition first', async () => {
    const ref = await open({ overrideOf: cpuHigh });
    const closed = jasmine.createSpy('closed');
    ref.afterClosed().subscribe(closed);

    (dialogElement().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    expect(Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim())).toEqual(['Acme']);
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    typeInto(dialogElement().querySelector('input[formcontrolname="threshold"]'), '95');
    await turn();

    buttonByText('Preview: which systems would fire now', dialogElement()).click();
    const preview = await nextRequest(http, { method: 'POST', url: `${ALERT_RULES_URL}/preview` });
    expect(preview.request.body).toEqual(
      jasmine.objectContaining({ key: 'cpu.high', scope: { type: 'customer', id: 10 }, threshold: 95 }),
    );
    preview.flush(previewBody());
    await turn();
    expect(dialogElement().querySelector('[data-testid="preview-list"]')?.textContent).toContain('web-01 (Acme): 97');

    buttonByText('Create rule', dialogElement()).click();
    const post = await nextRequest(http, { method: 'POST', url: ALERT_RULES_URL });
    expect(post.request.body).toEqual({
      key: 'cpu.high',
      kind: 'metric',
      scope: { type: 'customer', id: 10 },
      name: 'CPU high',
      severity: 'WARNING',
      metric: 'cpu.usage_pct',
      instanceGlob: null,
      operator: '>',
      threshold: 95,
      absolute: false,
      forSeconds: 600,
      horizonSeconds: null,
      enabled: true,
      countsAsDowntime: false,
    });
    post.flush({ ...cpuHigh, id: 2, threshold: 95 });
    await turn();
    expect(closed).toHaveBeenCalledWith(jasmine.objectContaining({ id: 2 }));
  });

  it('overrides a forecast with its own horizon, as a forecast', async () => {
    const diskForecast: AlertRule = {
      ...cpuHigh,
      key: 'disk.forecast',
      name: 'Disk full within 3 days',
      kind: 'forecast',
      metric: 'disk.used_pct',
      operator: '>=',
      threshold: 100,
      forSeconds: 0,
      horizonSeconds: 259_200,
    };
    await open({ overrideOf: diskForecast });
    (dialogElement().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    expect(dialogElement().querySelector('input[formcontrolname="forSeconds"]')).toBeNull();
    typeInto(dialogElement().querySelector('[data-testid="horizon-hours"]'), '48');
    await turn();

    buttonByText('Create rule', dialogElement()).click();
    const post = await nextRequest(http, { method: 'POST', url: ALERT_RULES_URL });
    expect(post.request.body).toEqual(
      jasmine.objectContaining({
        key: 'disk.forecast',
        kind: 'forecast',
        operator: '>=',
        threshold: 100,
        forSeconds: 0,
        horizonSeconds: 172_800,
        absolute: false,
      }),
    );
    post.flush({ ...diskForecast, id: 3, horizonSeconds: 172_800 });
    await turn();
  });

  it('asks for no metric on the offline rule', async () => {
    const rule = { ...cpuHigh, key: 'system.offline', kind: 'offline', metric: null, operator: null, threshold: null };
    ({ http } = await openDialogForTests(AlertRuleDialog, { rule } as AlertRuleDialogData, userBody()));
    expect(dialogElement().querySelector('input[formcontrolname="metric"]')).toBeNull();
    expect(dialogElement().textContent).toContain('reads no metric');
    buttonByText('Save', dialogElement()).click();
    const patch = await nextRequest(http, { method: 'PATCH', url: `${ALERT_RULES_URL}/1` });
    expect(patch.request.body).toEqual(
      jasmine.objectContaining({ metric: null, operator: null, threshold: null, countsAsDowntime: true }),
    );
    expect(dialogElement().querySelector('[data-testid="counts-as-downtime"]')).toBeNull();
    expect(dialogElement().textContent).toContain('A system offline always counts as downtime');
    patch.flush({ ...cpuHigh, key: 'system.offline' });
  });

  it('starts an override counting as downtime as its rule does, and lets it not count', async () => {
    const serviceDown: AlertRule = {
      ...cpuHigh,
      key: 'service.down',
      metric: 'service.active',
      countsAsDowntime: true,
    };
    await open({ overrideOf: serviceDown });
    const toggle = () =>
      dialogElement().querySelector('[data-testid="counts-as-downtime"] button') as HTMLButtonElement;
    expect(toggle().getAttribute('aria-checked')).toBe('true');
    toggle().click();
    (dialogElement().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    buttonByText('Create rule', dialogElement()).click();
    const post = await nextRequest(http, { method: 'POST', url: ALERT_RULES_URL });
    expect(post.request.body).toEqual(jasmine.objectContaining({ key: 'service.down', countsAsDowntime: false }));
    post.flush({ ...serviceDown, id: 3, countsAsDowntime: false });
    await turn();
  });
});
