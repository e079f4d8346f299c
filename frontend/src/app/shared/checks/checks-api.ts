import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type { Check } from '@contracts/checks';

// the JSON of /api/checks (contracts/checks.ts)
export type { Check };

export const CHECKS_URL = '/api/checks';

/** Network checks the account may see: what a page that places a check (a status page entry) picks from. */
@Injectable({ providedIn: 'root' })
export class ChecksApi {
  private readonly http = inject(HttpClient);

  all(): Observable<Check[]> {
    return this.http.get<Check[]>(CHECKS_URL);
  }
}
