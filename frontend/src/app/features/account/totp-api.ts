import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

/** A pending authenticator enrolment (POST /api/account/totp/setup); the secret is unused until confirmed. */
export interface TotpEnrolment {
  /** Base32, for typing into an app by hand. */
  secret: string;
  /** `otpauth://totp/…`, what the QR code holds. */
  otpauthUrl: string;
  /** PNG data URL of the QR code. */
  qrDataUrl: string;
}

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
    return this.http.post<unknown>(TOTP_URLS.confirm, { code }).pipe(map(() => undefined));
  }

  /** 400 when the password is wrong. */
  disable(password: string): Observable<void> {
    return this.http.post<unknown>(TOTP_URLS.disable, { password }).pipe(map(() => undefined));
  }
}
