import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { MatDialog } from '@angular/material/dialog';

import { AuthService } from '../../core/auth';
import { userBody } from '../../core/auth-testing';
import { buttonByText, nextRequest, provideForTests, typeInto } from '../../testing';
import { CLUSTERS_URL, CUSTOMERS_URL } from '../../shared/customers/customers-api';
import { AlertRuleDialog, AlertRuleDialogData } from './alert-rule-dialog';
import { ALERT_RULES_URL, AlertRule } from '../../shared/rules/rules-api';
import { SYSTEMS_URL } from '../../shared/rules/scope-targets';

const cpuHigh: AlertRule = {
  id: 1,
  key: 'cpu.high',
  name: 'CPU high',
  kind: 'metric',
  severity: 'WARNING',
  metric: 'cpu.usage_pct',
  instanceGlob: null,
  operator: '>',
  threshold: 85,
  absolute: false,
  forSeconds: 600,
  horizonSeconds: null,
  enabled: true,
  countsAsDowntime: false,
  scope: null,
  createdAt: '',
  updatedAt: '',
};

describe('AlertRuleDialog', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  const turn = () => new Promise((resolve) => setTimeout(resolve, 20));
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;

  async function open(data: AlertRuleDialogData) {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody({ role: 'OPERATOR', customerIds: [10] }));
    const ref = TestBed.inject(MatDialog).open(AlertRuleDialog, { data });
    await turn();
    (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
      { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
      { id: 20, name: 'Globex', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
    ]);
    (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([]);
    (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([]);
    await turn();
    return ref;
  }

  it('overrides a global rule at a customer, previewing the edited condition first', async () => {
    const ref = await open({ overrideOf: cpuHigh });
    const closed = jasmine.createSpy('closed');
    ref.afterClosed().subscribe(closed);

    (dialog().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    expect(Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim())).toEqual(['Acme']);
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    typeInto(dialog().querySelector('input[formcontrolname="threshold"]'), '95');
    await turn();

    buttonByText('Preview: which systems would fire now', dialog()).click();
    const preview = await nextRequest(http, { method: 'POST', url: `${ALERT_RULES_URL}/preview` });
    expect(preview.request.body).toEqual(
      jasmine.objectContaining({ key: 'cpu.high', scope: { type: 'customer', id: 10 }, threshold: 95 }),
    );
    preview.flush({
      evaluatedAt: '',
      note: '"for" is not considered',
      total: 1,
      systems: [
        {
          systemId: 5,
          systemName: 'web-01',
          customerId: 10,
          customerName: 'Acme',
          instance: '',
          value: 97,
          sampledAt: '',
          projectedAt: null,
        },
      ],
    });
    await turn();
    expect(dialog().querySelector('[data-testid="preview-list"]')?.textContent).toContain('web-01 (Acme): 97');

    buttonByText('Create rule', dialog()).click();
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
    (dialog().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    expect(dialog().querySelector('input[formcontrolname="forSeconds"]')).toBeNull();
    typeInto(dialog().querySelector('[data-testid="horizon-hours"]'), '48');
    await turn();

    buttonByText('Create rule', dialog()).click();
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
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody());
    TestBed.inject(MatDialog).open(AlertRuleDialog, {
      data: {
        rule: { ...cpuHigh, key: 'system.offline', kind: 'offline', metric: null, operator: null, threshold: null },
      },
    });
    await turn();
    expect(dialog().querySelector('input[formcontrolname="metric"]')).toBeNull();
    expect(dialog().textContent).toContain('reads no metric');
    buttonByText('Save', dialog()).click();
    const patch = await nextRequest(http, { method: 'PATCH', url: `${ALERT_RULES_URL}/1` });
    expect(patch.request.body).toEqual(
      jasmine.objectContaining({ metric: null, operator: null, threshold: null, countsAsDowntime: true }),
    );
    expect(dialog().querySelector('[data-testid="counts-as-downtime"]')).toBeNull();
    expect(dialog().textContent).toContain('A system offline always counts as downtime');
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
    const toggle = () => dialog().querySelector('[data-testid="counts-as-downtime"] button') as HTMLButtonElement;
    expect(toggle().getAttribute('aria-checked')).toBe('true');
    toggle().click();
    (dialog().querySelector('[data-testid="scope-id"] .mat-mdc-select-trigger') as HTMLElement).click();
    await turn();
    (document.querySelector('mat-option') as HTMLElement).click();
    await turn();
    buttonByText('Create rule', dialog()).click();
    const post = await nextRequest(http, { method: 'POST', url: ALERT_RULES_URL });
    expect(post.request.body).toEqual(jasmine.objectContaining({ key: 'service.down', countsAsDowntime: false }));
    post.flush({ ...serviceDown, id: 3, countsAsDowntime: false });
    await turn();
  });
});
