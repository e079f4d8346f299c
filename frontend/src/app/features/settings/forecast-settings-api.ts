import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type { ForecastSettings } from '@contracts/settings';

/** `windowHours` of hourly points a trend is fitted over; `minShare` of them must hold data (contracts/settings.ts). */
export type { ForecastSettings };

export const FORECAST_SETTINGS_URL = '/api/settings/forecasts';

@Injectable({ providedIn: 'root' })
export class ForecastSettingsApi {
  private readonly http = inject(HttpClient);

  get(): Observable<ForecastSettings> {
    return this.http.get<ForecastSettings>(FORECAST_SETTINGS_URL);
  }

  save(settings: ForecastSettings): Observable<ForecastSettings> {
    return this.http.put<ForecastSettings>(FORECAST_SETTINGS_URL, settings);
  }
}
