import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type { SsoOptions } from '@contracts/sso';

export const SSO_OPTIONS_URL = '/api/auth/sso';
export const SSO_START_URL = '/api/auth/sso/start';

/** What the sign-in page needs to offer single sign-on: whether it is configured, and its button's name. */
@Injectable({ providedIn: 'root' })
export class SsoOptionsApi {
  private readonly http = inject(HttpClient);

  options(): Observable<SsoOptions> {
    return this.http.get<SsoOptions>(SSO_OPTIONS_URL);
  }
}
