import { Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Resource } from '@console/core/resource';
import type {
  GroupMappingEntry,
  GroupMappingsRequest,
  LocalSignInRequest,
  SsoSettings,
  SsoTest,
  SsoTestResult,
} from '@contracts/sso';

// the JSON of /api/settings/sso (contracts/sso.ts): never the client secret
export type { GroupMappingEntry, SsoSettings, SsoTestResult };

export const SSO_SETTINGS_URL = '/api/settings/sso';
export const SSO_MAPPINGS_URL = '/api/settings/sso/group-mappings';
export const SSO_LOCAL_SIGN_IN_URL = '/api/settings/sso/local-sign-in';
export const SSO_TEST_URL = '/api/settings/sso/test';
/** A link, not a request: the browser itself goes to the provider and comes back. */
export const SSO_TEST_START_URL = '/api/settings/sso/test/start';

/** Single sign-on: the configuration (from variables, read-only) and the group mapping (ADMIN). */
@Injectable({ providedIn: 'root' })
export class SsoApi extends Resource<SsoSettings> {
  constructor() {
    super(SSO_SETTINGS_URL);
  }

  saveMappings(body: GroupMappingsRequest): Observable<SsoSettings> {
    return this.http.put<SsoSettings>(SSO_MAPPINGS_URL, body);
  }

  /** This administrator's latest test sign-in, or null. */
  testResult(): Observable<SsoTest> {
    return this.http.get<SsoTest>(SSO_TEST_URL);
  }

  /** Password sign-in for break-glass administrators only, or for everyone again. */
  setLocalSignIn(body: LocalSignInRequest): Observable<SsoSettings> {
    return this.http.put<SsoSettings>(SSO_LOCAL_SIGN_IN_URL, body);
  }
}
