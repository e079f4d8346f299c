import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { buttonByText, nextRequest, renderAnsweredForTests, settle, typeInto } from '@console/testing';
import { ALERT_RETENTION_URL } from './alert-retention-api';
import { AlertRetentionPage } from './alert-retention-page';

describe('AlertRetentionPage', () => {
  let fixture: ComponentFixture<AlertRetentionPage>;
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  /** The page once the server answered that it keeps resolved alerts `days` days. */
  async function render(days: number): Promise<HTMLElement> {
    const retention = { retentionDays: days };
    ({ fixture, http } = await renderAnsweredForTests(AlertRetentionPage, undefined, ALERT_RETENTION_URL, retention));
    return fixture.nativeElement;
  }

  it('shows the retention days and saves a new value', async () => {
    const page = await render(90);
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
    const page = await render(30);
    typeInto(page.querySelector('input'), '4000');
    await settle(fixture);
    buttonByText('Save', page).click();
    await settle(fixture);
    http.expectNone({ method: 'PUT' });
    expect(page.querySelector('mat-error')?.textContent).toContain('0 to 3650');
  });
});
