import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { FormControl, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { USERNAME_RULE, usernameValidator } from '@console/core/validators';

export interface IdentityControls {
  name: FormControl<string>;
  email: FormControl<string>;
  username: FormControl<string>;
}

/** The controls an account's identity is edited with (spread into the form's group), with the server's rules. */
export function identityControls(initial: { name?: string; email?: string; username?: string | null } = {}) {
  return {
    name: new FormControl(initial.name ?? '', {
      nonNullable: true,
      validators: [Validators.required, Validators.maxLength(200)],
    }),
    email: new FormControl(initial.email ?? '', {
      nonNullable: true,
      validators: [Validators.required, Validators.email],
    }),
    username: new FormControl(initial.username ?? '', { nonNullable: true, validators: usernameValidator }),
  } satisfies IdentityControls;
}

/**
 * Name, e-mail address and optional username of an account, as setup, the profile and the user
 * dialog ask for them; a field the server refused shows the server's words. Inside the caller's
 * form element (its fields lay out as the form's own).
 */
@Component({
  selector: 'argus-identity-fields',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  template: `
    @let c = controls();
    <mat-form-field>
      <mat-label>Name</mat-label>
      <input matInput name="name" [formControl]="c.name" [attr.autocomplete]="own() ? 'name' : null" required />
      <mat-error>{{ own() ? 'Enter your name.' : 'Enter a name.' }}</mat-error>
    </mat-form-field>
    <mat-form-field>
      <mat-label>E-mail address</mat-label>
      <input
        matInput
        type="email"
        name="email"
        [formControl]="c.email"
        [attr.autocomplete]="own() ? 'email' : 'off'"
        required
      />
      <mat-error>{{ c.email.getError('server') ?? 'Enter a valid e-mail address.' }}</mat-error>
    </mat-form-field>
    <mat-form-field subscriptSizing="dynamic" class="long-hint">
      <mat-label>Username (optional)</mat-label>
      <input
        matInput
        name="username"
        [formControl]="c.username"
        [attr.autocomplete]="own() ? 'username' : 'off'"
        autocapitalize="none"
      />
      @if (own()) {
        <mat-hint>You can sign in with it instead of the e-mail address.</mat-hint>
      }
      <mat-error>{{ c.username.getError('server') ?? usernameRule }}</mat-error>
    </mat-form-field>
  `,
  styles: `
    :host {
      display: contents;
    }
  `,
})
export class IdentityFields {
  protected readonly usernameRule = USERNAME_RULE;
  readonly controls = input.required<IdentityControls>();
  /** The person's own account (setup, profile): "your", and the browser may fill it in. */
  readonly own = input(false);
}
