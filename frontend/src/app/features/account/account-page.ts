import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatTabsModule } from '@angular/material/tabs';

import { AuthService, roleLabel } from '@console/core/auth';
import { PasswordForm } from './password-form';
import { ProfileForm } from './profile-form';
import { TokensSection } from './tokens-section';
import { TwoFactorSection } from './two-factor-section';
import { PageHeader } from '@console/ui/page-header';

/**
 * The signed-in account: profile, password, two-factor authentication, API tokens. An account that
 * signs in through the identity provider only is told that its password and second factor live there.
 */
@Component({
  selector: 'argus-account-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, MatTabsModule, PasswordForm, ProfileForm, TokensSection, TwoFactorSection],
  template: `
    <argus-page-header heading="Account">{{ auth.user()?.email }} · {{ roleLabel() }}</argus-page-header>
    <mat-tab-group mat-stretch-tabs="false" mat-align-tabs="start" animationDuration="0ms">
      <mat-tab label="Profile">
        <ng-template matTabContent>
          <div class="tab-body"><argus-profile-form /></div>
        </ng-template>
      </mat-tab>
      <mat-tab label="Password">
        <ng-template matTabContent>
          <div class="tab-body">
            @if (providerOnly()) {
              <p class="provider-note" data-testid="provider-password">
                You sign in through your organisation's identity provider, and Argus holds no password for you. Change
                your password there.
              </p>
            } @else {
              <argus-password-form />
            }
          </div>
        </ng-template>
      </mat-tab>
      <mat-tab label="Two-factor authentication">
        <ng-template matTabContent>
          <div class="tab-body">
            @if (providerOnly()) {
              <p class="provider-note" data-testid="provider-second-factor">
                You sign in through your organisation's identity provider: your second factor is the one it asks for,
                and Argus asks for no code of its own after it. Manage it at your identity provider.
              </p>
            } @else {
              @if (source() === 'both') {
                <p class="provider-note" data-testid="password-only-second-factor">
                  The authenticator app below is asked for when you sign in with your password. Signing in through your
                  identity provider uses the provider's own second factor.
                </p>
              }
              <argus-two-factor-section />
            }
          </div>
        </ng-template>
      </mat-tab>
      <mat-tab label="API tokens">
        <ng-template matTabContent>
          <div class="tab-body"><argus-tokens-section /></div>
        </ng-template>
      </mat-tab>
    </mat-tab-group>
  `,
  styles: `
    .tab-body {
      padding: 24px 0;
    }
    .provider-note {
      max-width: 60ch;
    }
  `,
})
export class AccountPage {
  protected readonly auth = inject(AuthService);
  protected readonly roleLabel = computed(() => roleLabel(this.auth.user()?.role));
  protected readonly source = computed(() => this.auth.user()?.source ?? 'local');
  /**
   * Signed in through the identity provider only: no password of its own, and the provider's second
   * factor is the one that counts (Argus asks for no code after a provider sign-in), so neither the
   * password form nor the authenticator app set-up is offered.
   */
  protected readonly providerOnly = computed(() => this.source() === 'sso');
}
