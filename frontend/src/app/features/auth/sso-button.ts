import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { ActivatedRoute } from '@angular/router';
import { catchError, of } from 'rxjs';

import { safeReturnUrl } from '@console/core/return-url';
import { SSO_START_URL, SsoOptionsApi } from './sso-options-api';

/**
 * "Sign in with <provider>" beside the local form, when single sign-on is configured: a plain link,
 * since the browser itself must go to the identity provider and back. A refused single sign-on comes
 * back to the sign-in page with `ssoError`, shown here.
 */
@Component({
  selector: 'argus-sso-button',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule],
  template: `
    @if (ssoError(); as message) {
      <p class="form-error" role="alert" data-testid="sso-error">{{ message }}</p>
    }
    @if (options()?.enabled) {
      <div class="sso" data-testid="sso">
        <p class="divider" aria-hidden="true"><span>or</span></p>
        <a mat-stroked-button class="sso-link" [href]="startUrl()">Sign in with {{ options()?.name }}</a>
      </div>
    }
  `,
  styles: `
    .sso {
      margin-top: 16px;
    }
    .divider {
      display: flex;
      align-items: center;
      gap: 12px;
      margin: 0 0 16px;
      color: var(--mat-sys-on-surface-variant);
    }
    .divider::before,
    .divider::after {
      content: '';
      flex: 1;
      border-top: 1px solid var(--mat-sys-outline-variant);
    }
    .sso-link {
      width: 100%;
    }
  `,
})
export class SsoButton {
  private readonly query = inject(ActivatedRoute).snapshot.queryParamMap;

  /** Where to land afterwards (the sign-in page's `returnUrl`). */
  readonly returnUrl = input<string>();

  protected readonly options = toSignal(
    inject(SsoOptionsApi)
      .get()
      .pipe(catchError(() => of(null))),
  );
  protected readonly ssoError = computed(() => this.query.get('ssoError'));
  protected readonly startUrl = computed(
    () => `${SSO_START_URL}?${new URLSearchParams({ returnTo: safeReturnUrl(this.returnUrl()) }).toString()}`,
  );
}
