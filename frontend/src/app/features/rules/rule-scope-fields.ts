import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { FormControl, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { startWith, switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { NewScope } from '@console/shared/rules/rules-api';
import { ScopeChoice, ScopeTargetsApi } from '@console/shared/rules/scope-targets';

export interface RuleScopeControls {
  key: FormControl<string>;
  scopeType: FormControl<ScopeChoice>;
  scopeId: FormControl<number | null>;
}

/**
 * The key and place of a new alert or event rule (spread into the dialog's form). An override, or
 * an edit, keeps the key of the rule it starts from: the key field is then disabled.
 */
export function ruleScopeControls(key: string, choices: readonly ScopeChoice[], keyFixed: boolean): RuleScopeControls {
  return {
    key: new FormControl(
      { value: key, disabled: keyFixed },
      { nonNullable: true, validators: [Validators.required, Validators.pattern(/^[a-z0-9_.-]{1,64}$/)] },
    ),
    scopeType: new FormControl(choices[0] ?? 'customer', { nonNullable: true }),
    scopeId: new FormControl<number | null>(null),
  };
}

/** The chosen place, or null for global; marks the target field when a non-global place has none picked. */
export function chosenScope(controls: RuleScopeControls): NewScope | undefined {
  const type = controls.scopeType.value;
  const id = controls.scopeId.value;
  if (type === 'global') return null;
  if (id === null) {
    controls.scopeId.setErrors({ required: true });
    return undefined;
  }
  return { type, id };
}

/** Key, "Applies to" and "Which …" of a new rule, shared by the alert and the event rule dialogs. */
@Component({
  selector: 'argus-rule-scope-fields',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, MatSelectModule, ReactiveFormsModule],
  template: `
    @let c = controls();
    <mat-form-field>
      <mat-label>Key</mat-label>
      <input matInput name="key" [formControl]="c.key" autocomplete="off" />
      <mat-hint>An override uses the key of the rule it replaces.</mat-hint>
      <mat-error>{{ c.key.getError('server') ?? '1–64 of a-z, 0-9, “_”, “.” and “-”.' }}</mat-error>
    </mat-form-field>
    <div class="form-row">
      <mat-form-field>
        <mat-label>Applies to</mat-label>
        <mat-select [formControl]="c.scopeType" data-testid="scope-type">
          @for (choice of choices(); track choice) {
            <mat-option [value]="choice">{{ choice === 'global' ? 'Everywhere (global)' : 'A ' + choice }}</mat-option>
          }
        </mat-select>
      </mat-form-field>
      @if (scopeType(); as type) {
        @if (type !== 'global') {
          <mat-form-field>
            <mat-label>Which {{ type }}</mat-label>
            <mat-select [formControl]="c.scopeId" data-testid="scope-id">
              @for (target of targets(); track target.id) {
                <mat-option [value]="target.id">{{ target.label }}</mat-option>
              }
            </mat-select>
            <mat-error>{{ c.scopeId.getError('server') ?? 'Pick where the rule applies.' }}</mat-error>
          </mat-form-field>
        }
      }
    </div>
  `,
  styles: `
    :host {
      display: contents;
    }
  `,
})
export class RuleScopeFields {
  private readonly auth = inject(AuthService);
  readonly controls = input.required<RuleScopeControls>();
  readonly choices = input.required<readonly ScopeChoice[]>();

  private readonly loaded = toSignal(inject(ScopeTargetsApi).load(this.auth.user()), { initialValue: LOADING });
  protected readonly scopeType = toSignal(
    toObservable(this.controls).pipe(switchMap((c) => c.scopeType.valueChanges.pipe(startWith(c.scopeType.value)))),
  );
  protected readonly targets = computed(() => {
    const targets = this.loaded();
    const type = this.scopeType();
    return targets.state === 'ready' && type && type !== 'global' ? targets.value[type] : [];
  });
}
