import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatTabsModule } from '@angular/material/tabs';

import { AuthService, roleLabel } from '../../core/auth';
import { Icon } from '../../ui/icon';
import { PasswordForm } from './password-form';
import { ProfileForm } from './profile-form';
import { TokensSection } from './tokens-section';

/** The signed-in account: profile, password, API tokens. */
@Component({
  selector: 'argus-account-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, MatTabsModule, PasswordForm, ProfileForm, TokensSection],
  template: `
    <header class="page-header">
      <h1>Account</h1>
      <p>{{ auth.user()?.email }} · {{ roleLabel() }}</p>
    </header>
    <mat-tab-group mat-stretch-tabs="false" mat-align-tabs="start" animationDuration="0ms">
      <mat-tab label="Profile">
        <ng-template matTabContent>
          <div class="tab-body"><argus-profile-form /></div>
        </ng-template>
      </mat-tab>
      <mat-tab label="Password">
        <ng-template matTabContent>
          <div class="tab-body">
            <argus-password-form />
            <section class="two-factor" aria-labelledby="two-factor-title">
              <argus-icon name="security" />
              <div>
                <h2 id="two-factor-title">Two-factor authentication: coming soon</h2>
                <p>Codes from an authenticator app will be able to protect your sign-in here.</p>
              </div>
            </section>
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
    .two-factor {
      display: flex;
      gap: 16px;
      align-items: flex-start;
      max-width: 480px;
      margin-top: 32px;
      padding: 16px 20px;
      border: 1px solid var(--mat-sys-outline-variant);
      border-radius: var(--mat-sys-corner-large);
      color: var(--mat-sys-on-surface-variant);
      h2 {
        font: var(--mat-sys-title-small);
        color: var(--mat-sys-on-surface);
        margin: 0 0 4px;
      }
      p {
        margin: 0;
      }
    }
  `,
})
export class AccountPage {
  protected readonly auth = inject(AuthService);
  protected readonly roleLabel = computed(() => roleLabel(this.auth.user()?.role));
}
