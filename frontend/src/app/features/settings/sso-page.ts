import { ChangeDetectionStrategy, Component, inject, signal, viewChild } from '@angular/core';
import { JsonPipe } from '@angular/common';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormArray, FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggle, MatSlideToggleModule } from '@angular/material/slide-toggle';

import { Role, ROLES, roleLabel } from '@console/core/auth';
import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { CustomersApi } from '@console/shared/customers/customers-api';
import { Icon } from '@console/ui/icon';
import { Notify } from '@console/ui/notify';
import { Submission } from '@console/ui/submission';
import { GroupMappingEntry, SSO_TEST_START_URL, SsoApi, SsoSettings, SsoTestResult } from './sso-api';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

type MappingRow = FormGroup<{
  group: FormControl<string>;
  role: FormControl<Role>;
  customerIds: FormControl<number[]>;
}>;

function mappingRow(entry?: GroupMappingEntry): MappingRow {
  return new FormGroup({
    group: new FormControl(entry?.group ?? '', {
      nonNullable: true,
      validators: [Validators.required, Validators.maxLength(200)],
    }),
    role: new FormControl<Role>(entry?.role ?? 'VIEWER', { nonNullable: true }),
    customerIds: new FormControl<number[]>(entry?.customerIds ?? [], { nonNullable: true }),
  });
}

/**
 * Settings → Single sign-on (administrators): the OpenID provider as the variables configure it
 * (read-only: no secret shown), and the group mapping — provider group → role and customers —
 * applied at each account's next sign-in.
 */
@Component({
  selector: 'argus-sso-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    LoadState,
    Icon,
    JsonPipe,
    MatButtonModule,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    MatSlideToggleModule,
    ReactiveFormsModule,
  ],
  template: `
    <argus-page-header heading="Single sign-on"
      >People sign in with your identity provider (OpenID Connect); their groups there decide their role
      here.</argus-page-header
    >
    @let state = loadedState();
    <argus-load-state [state]="state" label="Loading single sign-on settings" />
    @if (state.state === 'ready') {
      @let settings = state.value;
      <section aria-labelledby="sso-provider">
        <h2 id="sso-provider">Identity provider</h2>
        @if (settings.configured) {
          <p class="field-note">Set by the OIDC_* environment variables: change them there and restart Argus.</p>
          <dl class="facts" data-testid="sso-config">
            <dt>Issuer</dt>
            <dd>{{ settings.issuer }}</dd>
            <dt>Client ID</dt>
            <dd>{{ settings.clientId }}</dd>
            <dt>Scopes</dt>
            <dd>{{ settings.scopes.join(' ') }}</dd>
            <dt>Groups claim</dt>
            <dd>{{ settings.groupsClaim }}</dd>
            <dt>Button</dt>
            <dd>Sign in with {{ settings.buttonName }}</dd>
            <dt>Link by verified e-mail</dt>
            <dd>{{ settings.linkVerifiedEmail ? 'Yes' : 'No' }}</dd>
            <dt>Create accounts at first sign-in</dt>
            <dd>{{ settings.createUsers ? 'Yes' : 'No' }}</dd>
            <dt>Redirect URI to register</dt>
            <dd>
              <code>{{ settings.callbackUrl }}</code>
            </dd>
          </dl>
        } @else {
          <p data-testid="sso-off">
            Single sign-on is off. Set OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to turn it on, and
            register <code>{{ settings.callbackUrl }}</code> as the redirect URI at the provider.
          </p>
        }
      </section>
      @if (settings.configured) {
        <section aria-labelledby="sso-test">
          <h2 id="sso-test">Test sign-in</h2>
          <p class="field-note">
            Sign in at the provider as anyone (yourself or a test account) to see the claims Argus receives and what the
            mapping makes of them. Nobody is signed in here; you stay who you are.
          </p>
          <a mat-stroked-button [href]="testStartUrl">Test sign-in</a>
          @if (test(); as result) {
            <div class="test-result" data-testid="sso-test-result">
              @if (result.role) {
                <p>
                  Would sign in as <strong>{{ roleLabel(result.role) }}</strong>
                  @if (result.role !== 'ADMIN') {
                    with {{ customerNames(result.customerIds) }}
                  }
                </p>
              } @else {
                <p class="form-error" role="alert">Would be refused: {{ result.refused }}</p>
              }
              @if (result.claims) {
                <p>Groups: {{ result.groups.length ? result.groups.join(', ') : 'none' }}</p>
                <pre class="claims" aria-label="Claims received">{{ result.claims | json }}</pre>
              }
            </div>
          }
        </section>
      }
      <section aria-labelledby="sso-local">
        <h2 id="sso-local">Password sign-in</h2>
        <mat-slide-toggle
          data-testid="local-sign-in"
          [checked]="settings.localSignInRestricted"
          [disabled]="!settings.configured || localSaving.busy()"
          (change)="restrictLocal($event.checked)"
        >
          Only break-glass administrators sign in with a password
        </mat-slide-toggle>
        <p class="field-note">
          Everyone else signs in with the identity provider. Break-glass administrators (the first one, and those marked
          so under Users) can always sign in with their password, even while the provider is down. Turning this on signs
          everyone else out of the sessions they opened with a password.
        </p>
        @if (localSaving.error(); as message) {
          <p class="form-error" role="alert">{{ message }}</p>
        }
      </section>
      <section aria-labelledby="sso-mapping">
        <h2 id="sso-mapping">Group mapping</h2>
        @if (settings.mappingSource === 'environment') {
          <p class="field-note" data-testid="mapping-fixed">
            Set by the OIDC_GROUP_MAP environment variable: change it there and restart Argus. Customers named there
            that do not exist grant nothing.
          </p>
        }
        <p class="field-note">
          Someone in none of these groups is refused. In several, they get the highest role and every customer of those
          groups.
        </p>
        <form class="argus-form" [formGroup]="form" (ngSubmit)="save()">
          <ul class="mappings" formArrayName="mappings">
            @for (row of mappings.controls; track row; let i = $index) {
              <li class="mapping" [formGroupName]="i" data-testid="mapping">
                <mat-form-field subscriptSizing="dynamic">
                  <mat-label>Group</mat-label>
                  <input matInput formControlName="group" autocomplete="off" />
                  <mat-error>Name the group as the provider sends it.</mat-error>
                </mat-form-field>
                <mat-form-field subscriptSizing="dynamic">
                  <mat-label>Role</mat-label>
                  <mat-select formControlName="role">
                    @for (role of roles; track role) {
                      <mat-option [value]="role">{{ roleLabel(role) }}</mat-option>
                    }
                  </mat-select>
                </mat-form-field>
                @if (row.controls.role.value !== 'ADMIN') {
                  <mat-form-field subscriptSizing="dynamic">
                    <mat-label>Customers</mat-label>
                    <mat-select formControlName="customerIds" multiple>
                      @for (customer of customers(); track customer.id) {
                        <mat-option [value]="customer.id">{{ customer.name }}</mat-option>
                      }
                    </mat-select>
                  </mat-form-field>
                }
                @if (row.enabled) {
                  <button
                    mat-icon-button
                    type="button"
                    [attr.aria-label]="'Remove the mapping of ' + (row.controls.group.value || 'this group')"
                    (click)="remove(i)"
                  >
                    <argus-icon name="delete" />
                  </button>
                }
              </li>
            } @empty {
              <li class="field-note" data-testid="no-mapping">No group is mapped: nobody can sign in this way yet.</li>
            }
          </ul>
          @if (submission.error(); as message) {
            <p class="form-error" role="alert">{{ message }}</p>
          }
          <div class="form-actions" [hidden]="form.disabled">
            <button mat-button type="button" class="aside" (click)="add()">
              <argus-icon matButtonIcon name="add" />
              Add a group
            </button>
            <button mat-flat-button type="submit" [disabled]="submission.busy() || form.pristine">Save mapping</button>
          </div>
        </form>
      </section>
    }
  `,
  styles: `
    section {
      max-width: 960px;
      margin-bottom: 32px;
    }
    .facts {
      display: grid;
      grid-template-columns: minmax(8rem, max-content) 1fr;
      gap: 4px 16px;
      overflow-wrap: anywhere;
    }
    .facts dt {
      font-weight: 500;
    }
    .facts dd {
      margin: 0;
    }
    .mappings {
      list-style: none;
      padding: 0;
      margin: 0 0 8px;
    }
    .mapping {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px 12px;
      padding: 8px 0;
      border-bottom: 1px solid var(--mat-sys-outline-variant);
    }
    .claims {
      overflow: auto;
      max-height: 24rem;
      padding: 8px;
      background: var(--mat-sys-surface-container);
    }
    .mapping mat-form-field {
      flex: 1 1 12rem;
      min-width: 0;
    }
  `,
})
export class SsoPage {
  private readonly api = inject(SsoApi);
  private readonly notify = inject(Notify);
  protected readonly roles = ROLES;
  protected readonly roleLabel = roleLabel;
  protected readonly form = new FormGroup({ mappings: new FormArray<MappingRow>([]) });
  protected readonly mappings = this.form.controls.mappings;
  protected readonly loadedState = signal<Loaded<SsoSettings>>(LOADING);
  protected readonly submission = new Submission(this.form);
  protected readonly localSaving = new Submission();
  private readonly localToggle = viewChild(MatSlideToggle);
  private readonly fleet = toSignal(inject(CustomersApi).loadFleet());
  protected readonly customers = () => {
    const fleet = this.fleet();
    return fleet?.state === 'ready' ? fleet.value.customers : [];
  };

  protected readonly testStartUrl = SSO_TEST_START_URL;
  /** The latest test sign-in of this administrator (kept a few minutes by the server). */
  protected readonly test = signal<SsoTestResult | null>(null);

  constructor() {
    loaded(this.api.get()).subscribe((state) => {
      if (state.state === 'ready') this.show(state.value);
      this.loadedState.set(state);
      // back from a test sign-in (or not): the result, if there is one
      if (state.state === 'ready' && state.value.configured) {
        this.api.testResult().subscribe({ next: ({ result }) => this.test.set(result), error: () => undefined });
      }
    });
  }

  protected customerNames(ids: number[]): string {
    if (ids.length === 0) return 'no customer';
    const names = new Map(this.customers().map((customer) => [customer.id, customer.name]));
    return ids.map((id) => names.get(id) ?? `customer ${id}`).join(', ');
  }

  protected add(): void {
    this.mappings.push(mappingRow());
    this.form.markAsDirty();
  }

  protected remove(index: number): void {
    this.mappings.removeAt(index);
    this.form.markAsDirty();
  }

  protected save(): void {
    if (!this.submission.ready()) return;
    const mappings = this.mappings.getRawValue().map((row) => ({
      group: row.group.trim(),
      role: row.role,
      customerIds: row.role === 'ADMIN' ? [] : row.customerIds,
    }));
    this.submission.run(this.api.saveMappings({ mappings }), (saved) => {
      this.show(saved);
      this.loadedState.set({ state: 'ready', value: saved });
      this.notify.done('Group mapping saved');
    });
  }

  protected restrictLocal(restricted: boolean): void {
    this.localSaving.run(
      this.api.setLocalSignIn({ restricted }),
      (saved) => {
        this.loadedState.set({ state: 'ready', value: saved });
        this.notify.done(
          restricted
            ? 'Password sign-in is now for break-glass administrators only'
            : 'Password sign-in is open to everyone again',
        );
      },
      {
        // refused: the toggle goes back to what the server holds, the error line says why
        refused: () => {
          const toggle = this.localToggle();
          if (toggle) toggle.checked = !restricted;
          return false;
        },
      },
    );
  }

  private show(settings: SsoSettings): void {
    this.mappings.clear();
    for (const entry of settings.mappings) this.mappings.push(mappingRow(entry));
    // OIDC_GROUP_MAP's mapping is shown, never edited here
    if (settings.mappingSource === 'environment') this.form.disable();
    this.form.markAsPristine();
  }
}
