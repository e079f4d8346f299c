import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable, tap } from 'rxjs';

import { AuthService, User } from '@console/core/auth';
import type { PasswordChange, ProfileChanges, UserAnswer } from '@contracts/accounts';

// PATCH /api/account: only what changed; `username: null` removes it (contracts/accounts.ts)
export type { ProfileChanges };

export const ACCOUNT_URL = '/api/account';
export const ACCOUNT_PASSWORD_URL = '/api/account/password';

/** The signed-in account's own profile and password. */
@Injectable({ providedIn: 'root' })
export class AccountApi {
  private readonly http = inject(HttpClient);
  private readonly auth = inject(AuthService);

  /** PATCH /api/account; the shell's user menu follows the saved profile. */
  updateProfile(changes: ProfileChanges): Observable<User> {
    return this.http.patch<UserAnswer>(ACCOUNT_URL, changes).pipe(
      map(({ user }) => user),
      tap((user) => this.auth.updateUser(user)),
    );
  }

  /** POST /api/account/password; the server ends the account's other sessions and trusted devices. */
  changePassword(currentPassword: string, newPassword: string): Observable<void> {
    const body: PasswordChange = { currentPassword, newPassword };
    return this.http.post<void>(ACCOUNT_PASSWORD_URL, body).pipe(map(() => undefined));
  }
}
