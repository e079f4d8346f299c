import { Injectable } from '@angular/core';

import { Resource } from '@console/core/resource';
import type { SsoOptions } from '@contracts/sso';

export const SSO_OPTIONS_URL = '/api/auth/sso';
export const SSO_START_URL = '/api/auth/sso/start';

/** What the sign-in page needs to offer single sign-on: whether it is configured, and its button's name. */
@Injectable({ providedIn: 'root' })
export class SsoOptionsApi extends Resource<SsoOptions> {
  constructor() {
    super(SSO_OPTIONS_URL);
  }
}
