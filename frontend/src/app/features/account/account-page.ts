import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatTabsModule } from '@angular/material/tabs';

import { AuthService, roleLabel } from '@console/core/auth';
import { PasswordForm } from './password-form';
import { ProfileForm } from './profile-form';
import { TokensSection } from './tokens-section';
import { TwoFactorSection } from './two-factor-section';
import { PageHeader } from '@console/ui/page-header';

/** The signed-in account: profile, password, two-factor authentication, API tokens. */
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
          <div class="tab-body"><argus-password-form /></div>
        </ng-template>
      </mat-tab>
      <mat-tab label="Two-factor authentication">
        <ng-template matTabContent>
          <div class="tab-body"><argus-two-factor-section /></div>
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
  `,
})
export class AccountPage {
  protected readonly auth = inject(AuthService);
  protected readonly roleLabel = computed(() => roleLabel(this.auth.user()?.role));
}
