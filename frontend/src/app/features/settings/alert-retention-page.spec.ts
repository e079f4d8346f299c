import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { buttonByText, nextRequest, provideForTests, settle, typeInto } from '@console/testing';
import { ALERT_RETENTION_URL } from './alert-retention-api';
import { AlertRetentionPage } from './alert-retention-page';

describe('AlertRetentionPage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  it('shows the retention days and saves a new value', async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(AlertRetentionPage);
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: ALERT_RETENTION_URL })).flush({ retentionDays: 90 });
    await settle(fixture);
    const page: HTMLElement = fixture.nativeElement;
    const input = page.querySelector('input') as HTMLInputElement;
    expect(input.value).toBe('90');
    expect(buttonByText('Save', page).disabled).toBeTrue();

    typeInto(input, '0');
    await settle(fixture);
    buttonByText('Save', page).click();
    const put = await nextRequest(http, { method: 'PUT', url: ALERT_RETENTION_URL });
    expect(put.request.body).toEqual({ retentionDays: 0 });
    put.flush({ retentionDays: 0 });
    await settle(fixture);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Alert retention saved');
  });

  it('refuses a value outside 0..3650 without asking the server', async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(AlertRetentionPage);
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: ALERT_RETENTION_URL })).flush({ retentionDays: 30 });
    await settle(fixture);
    const page: HTMLElement = fixture.nativeElement;
    typeInto(page.querySelector('input'), '4000');
    await settle(fixture);
    buttonByText('Save', page).click();
    await settle(fixture);
    http.expectNone({ method: 'PUT' });
    expect(page.querySelector('mat-error')?.textContent).toContain('0 to 3650');
  });
});
