import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

import type { SmtpSettings, SmtpTestSent, SmtpUpdate } from '@contracts/settings';

/** GET /api/settings/smtp: the password itself is never sent, only whether one is stored (contracts/settings.ts). */
export type { SmtpSettings };
export type Encryption = SmtpSettings['encryption'];

/** PUT body: `password` absent keeps the stored one, `""` clears it, anything else replaces it. */
export type { SmtpUpdate };

export const SMTP_URL = '/api/settings/smtp';
export const SMTP_TEST_URL = '/api/settings/smtp/test';

/** The runtime SMTP settings (ADMIN). */
@Injectable({ providedIn: 'root' })
export class SmtpApi {
  private readonly http = inject(HttpClient);

  readonly settings$: Observable<SmtpSettings> = this.http.get<SmtpSettings>(SMTP_URL);

  save(update: SmtpUpdate): Observable<SmtpSettings> {
    return this.http.put<SmtpSettings>(SMTP_URL, update);
  }

  /** Sends a test message with the saved settings; `to` defaults to the admin's own address. 502 names what failed. */
  sendTest(to?: string): Observable<void> {
    return this.http.post<SmtpTestSent>(SMTP_TEST_URL, to ? { to } : {}).pipe(map(() => undefined));
  }
}
