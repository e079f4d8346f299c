import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { catchError, Observable, of, throwError } from 'rxjs';

import type { HealthReport } from '@contracts/operations';

/** Body of GET /api/health (contracts/operations.ts). */
export type Health = HealthReport;
export type ServiceState = Health['services']['database'];

export const HEALTH_URL = '/api/health';

@Injectable({ providedIn: 'root' })
export class HealthService {
  private readonly http = inject(HttpClient);

  /**
   * One health check per subscription. The backend answers 503 when a dependency is down, with the
   * same body: that is a result to show, so only an unreachable API (or a body that is not a health
   * report, e.g. a proxy's error page) errors.
   */
  readonly health$: Observable<Health> = this.http
    .get<Health>(HEALTH_URL)
    .pipe(
      catchError((err: HttpErrorResponse) =>
        err.status === 503 && isHealth(err.error) ? of(err.error) : throwError(() => err),
      ),
    );
}

function isHealth(body: unknown): body is Health {
  if (typeof body !== 'object' || body === null) return false;
  const { status, services } = body as Partial<Health>;
  return (status === 'ok' || status === 'degraded') && typeof services === 'object' && services !== null;
}
