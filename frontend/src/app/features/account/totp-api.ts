import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

import type { TotpCode, TotpDisable, TotpEnrolment } from '@contracts/accounts';

/**
 * A pending authenticator enrolment (POST /api/account/totp/setup); the secret is unused until
 * confirmed. The secret in Base32 for typing by hand, the otpauth:// URL and its QR code (contracts/accounts.ts).
 */
export type { TotpEnrolment };

export const TOTP_URLS = {
  setup: '/api/account/totp/setup',
  confirm: '/api/account/totp/confirm',
  disable: '/api/account/totp/disable',
} as const;

/** The signed-in account's authenticator app (session cookie only, docs/api.md "Second factor"). */
@Injectable({ providedIn: 'root' })
export class TotpApi {
  private readonly http = inject(HttpClient);

  /** Starts (or restarts) an enrolment; an earlier pending secret is replaced. */
  setup(): Observable<TotpEnrolment> {
    return this.http.post<TotpEnrolment>(TOTP_URLS.setup, null);
  }

  /** 400 with `details.field = 'code'` when the code does not match; 409 when no enrolment is pending. */
  confirm(code: string): Observable<void> {
    return this.http.post<unknown>(TOTP_URLS.confirm, { code } satisfies TotpCode).pipe(map(() => undefined));
  }

  /** 400 when the password is wrong. */
  disable(password: string): Observable<void> {
    return this.http.post<unknown>(TOTP_URLS.disable, { password } satisfies TotpDisable).pipe(map(() => undefined));
  }
}
