import { Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

import { EditableResource } from '@console/core/resource';
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
export class SmtpApi extends EditableResource<SmtpSettings, SmtpUpdate> {
  constructor() {
    super(SMTP_URL);
  }

  /** Sends a test message with the saved settings; `to` defaults to the admin's own address. 502 names what failed. */
  sendTest(to?: string): Observable<void> {
    return this.http.post<SmtpTestSent>(SMTP_TEST_URL, to ? { to } : {}).pipe(map(() => undefined));
  }
}
