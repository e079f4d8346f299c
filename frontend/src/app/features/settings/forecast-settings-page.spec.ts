import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { buttonByText, nextRequest, provideForTests, settle, typeInto } from '@console/testing';
import { FORECAST_SETTINGS_URL } from './forecast-settings-api';
import { ForecastSettingsPage } from './forecast-settings-page';

describe('ForecastSettingsPage', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function render() {
    TestBed.configureTestingModule({ providers: provideForTests() });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(ForecastSettingsPage);
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: FORECAST_SETTINGS_URL })).flush({ windowHours: 24, minShare: 0.75 });
    await settle(fixture);
    const page: HTMLElement = fixture.nativeElement;
    const input = (name: string) => page.querySelector<HTMLInputElement>(`input[formcontrolname="${name}"]`)!;
    return { fixture, page, input };
  }

  it('shows the window and the share of it as a percentage, and saves them as the API takes them', async () => {
    const { fixture, page, input } = await render();
    expect(input('windowHours').value).toBe('24');
    expect(input('minShare').value).toBe('75');
    expect(buttonByText('Save', page).disabled).toBeTrue();

    typeInto(input('windowHours'), '48');
    typeInto(input('minShare'), '50');
    await settle(fixture);
    buttonByText('Save', page).click();
    const put = await nextRequest(http, { method: 'PUT', url: FORECAST_SETTINGS_URL });
    expect(put.request.body).toEqual({ windowHours: 48, minShare: 0.5 });
    put.flush({ windowHours: 48, minShare: 0.5 });
    await settle(fixture);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Forecast settings saved');
    expect(input('minShare').value).toBe('50');
  });

  it('refuses a window under 6 hours or a share under 10 % without asking the server', async () => {
    const { fixture, page, input } = await render();
    typeInto(input('windowHours'), '2');
    typeInto(input('minShare'), '5');
    await settle(fixture);
    buttonByText('Save', page).click();
    await settle(fixture);
    http.expectNone({ method: 'PUT' });
    const errors = Array.from(page.querySelectorAll('mat-error'), (e) => e.textContent);
    expect(errors.join(' ')).toContain('from 6 to 720');
    expect(errors.join(' ')).toContain('from 10 to 100');
  });

  it("puts the server's refusal under the field it names", async () => {
    const { fixture, page, input } = await render();
    typeInto(input('windowHours'), '36');
    await settle(fixture);
    buttonByText('Save', page).click();
    (await nextRequest(http, { method: 'PUT', url: FORECAST_SETTINGS_URL })).flush(
      { error: 'windowHours: must be a whole number of hours from 6 to 720', details: { field: 'windowHours' } },
      { status: 400, statusText: 'Bad Request' },
    );
    await settle(fixture);
    expect(page.querySelector('mat-error')?.textContent).toContain('Must be a whole number of hours');
  });
});
