import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type { AlertRetention } from '@contracts/settings';

/** `retentionDays`: resolved alerts older than this are deleted by the hourly check; 0 keeps them (contracts/settings.ts). */
export type { AlertRetention };

export const ALERT_RETENTION_URL = '/api/settings/alerts';

@Injectable({ providedIn: 'root' })
export class AlertRetentionApi {
  private readonly http = inject(HttpClient);

  get(): Observable<AlertRetention> {
    return this.http.get<AlertRetention>(ALERT_RETENTION_URL);
  }

  save(settings: AlertRetention): Observable<AlertRetention> {
    return this.http.put<AlertRetention>(ALERT_RETENTION_URL, settings);
  }
}
