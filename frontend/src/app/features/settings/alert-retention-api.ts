import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

export interface AlertRetention {
  /** Resolved alerts older than this are deleted by the hourly check; 0 keeps them. */
  retentionDays: number;
}

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
