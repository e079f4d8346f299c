import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormArray, FormControl, FormGroup, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { catchError, of } from 'rxjs';

import { errorMessage } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Check, ChecksApi } from '@console/shared/checks/checks-api';
import { ScopeTargetsApi } from '@console/shared/rules/scope-targets';
import { Icon } from '@console/ui/icon';
import { StatusPage, StatusPagesApi } from './status-pages-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

export interface StatusPageDialogData {
  page?: StatusPage;
}

type ItemRow = FormGroup<{ target: FormControl<string>; displayName: FormControl<string> }>;

/** A neutral public name for the n-th entry: never the system's name or hostname. */
export const neutralName = (index: number): string => `Service ${index + 1}`;

const itemRow = (target = '', displayName = ''): ItemRow =>
  new FormGroup({
    target: new FormControl(target, { nonNullable: true, validators: Validators.required }),
    displayName: new FormControl(displayName, {
      nonNullable: true,
      validators: [Validators.required, Validators.maxLength(100)],
    }),
  });

/** Publishes a status page, or edits one: customer (fixed once published), title, entries, announcement. */
@Component({
  selector: 'argus-status-page-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, Icon, MatSelectModule],
  template: `
    <h2 mat-dialog-title>{{ original ? 'Edit ' + original.title : 'New status page' }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        @if (!original) {
          <mat-form-field>
            <mat-label>Customer</mat-label>
            <mat-select formControlName="customerId" data-testid="customer">
              @for (c of customers(); track c.id) {
                <mat-option [value]="c.id">{{ c.label }}</mat-option>
              }
            </mat-select>
            <mat-error>{{ form.controls.customerId.getError('server') ?? 'Pick a customer.' }}</mat-error>
          </mat-form-field>
        }
        <mat-form-field>
          <mat-label>Title</mat-label>
          <input matInput formControlName="title" autocomplete="off" />
          <mat-error>{{ form.controls.title.getError('server') ?? 'Enter a title.' }}</mat-error>
        </mat-form-field>
        <fieldset class="items" formArrayName="items">
          <legend>What the page shows</legend>
          <p class="field-note">
            Each entry is shown under its public name only; the system's own name and hostname never appear.
          </p>
          @for (row of form.controls.items.controls; track row; let i = $index) {
            <div class="item" [formGroupName]="i" data-testid="item">
              <mat-form-field>
                <mat-label>System, check or cluster {{ i + 1 }}</mat-label>
                <mat-select formControlName="target" data-testid="item-target">
                  @if (choices().clusters.length) {
                    <mat-optgroup label="Clusters">
                      @for (t of choices().clusters; track t.id) {
                        <mat-option [value]="'cluster:' + t.id">{{ t.label }}</mat-option>
                      }
                    </mat-optgroup>
                  }
                  @if (choices().systems.length) {
                    <mat-optgroup label="Systems">
                      @for (t of choices().systems; track t.id) {
                        <mat-option [value]="'system:' + t.id">{{ t.label }}</mat-option>
                      }
                    </mat-optgroup>
                  }
                  <!-- a check is a system of its own: its entry names its id as systemId -->
                  @if (choices().checks.length) {
                    <mat-optgroup label="Checks">
                      @for (t of choices().checks; track t.id) {
                        <mat-option [value]="'system:' + t.id">{{ t.label }}</mat-option>
                      }
                    </mat-optgroup>
                  }
                </mat-select>
                <mat-error>{{
                  row.controls.target.getError('server') ?? 'Pick a system, check or cluster.'
                }}</mat-error>
              </mat-form-field>
              <mat-form-field>
                <mat-label>Public name {{ i + 1 }}</mat-label>
                <input matInput formControlName="displayName" autocomplete="off" data-testid="item-name" />
                <mat-error>{{
                  row.controls.displayName.getError('server') ?? 'Enter the name the page shows.'
                }}</mat-error>
              </mat-form-field>
              <button
                mat-icon-button
                type="button"
                [disabled]="form.controls.items.length === 1"
                (click)="removeItem(i)"
                [attr.aria-label]="'Remove entry ' + (i + 1)"
              >
                <argus-icon name="delete" />
              </button>
            </div>
          }
          <button mat-button type="button" (click)="addItem()">
            <argus-icon matButtonIcon name="add" />Add an entry
          </button>
        </fieldset>
        <mat-form-field>
          <mat-label>Announcement (optional)</mat-label>
          <textarea matInput formControlName="announcement" rows="3" data-testid="announcement"></textarea>
          <mat-hint>Shown at the top of the page, e.g. planned work.</mat-hint>
          <mat-error>{{ form.controls.announcement.getError('server') ?? 'At most 2000 characters.' }}</mat-error>
        </mat-form-field>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" [submit]="original ? 'Save' : 'Publish'" />
    </form>
  `,
  styles: `
    .items {
      border: 0;
      margin: 0 0 8px;
      padding: 0;
      min-width: 0;
    }
    .items legend {
      font-weight: 500;
      margin-bottom: 4px;
    }
    .item {
      display: grid;
      grid-template-columns: minmax(0, 3fr) minmax(0, 2fr) auto;
      gap: 0 12px;
      align-items: start;
    }
    @media (max-width: 600px) {
      .item {
        grid-template-columns: minmax(0, 1fr) auto;
      }
      .item > mat-form-field:first-child {
        grid-column: 1 / -1;
      }
    }
  `,
})
export class StatusPageDialog {
  private readonly api = inject(StatusPagesApi);
  private readonly auth = inject(AuthService);
  protected readonly original = inject<StatusPageDialogData>(MAT_DIALOG_DATA).page ?? null;
  private readonly targets = toSignal(inject(ScopeTargetsApi).load(this.auth.user()), { initialValue: LOADING });
  /** The checks offered beside the systems; none when they cannot be read (the rest of the form still works). */
  private readonly checks = toSignal(
    inject(ChecksApi)
      .list()
      .pipe(catchError(() => of([] as Check[]))),
    { initialValue: [] as Check[] },
  );

  protected readonly form = new FormGroup({
    customerId: new FormControl<number | null>(this.original?.customerId ?? null, Validators.required),
    title: new FormControl(this.original?.title ?? '', {
      nonNullable: true,
      validators: [Validators.required, Validators.maxLength(200)],
    }),
    items: new FormArray<ItemRow>(
      this.original
        ? this.original.items.map((item) => itemRow(`${item.kind}:${item.id}`, item.displayName))
        : [itemRow('', neutralName(0))],
    ),
    announcement: new FormControl(this.original?.announcement ?? '', {
      nonNullable: true,
      validators: Validators.maxLength(2000),
    }),
  });
  private readonly customerId = toSignal(this.form.controls.customerId.valueChanges, {
    initialValue: this.form.controls.customerId.value,
  });

  protected readonly customers = computed(() => {
    const targets = this.targets();
    return targets.state === 'ready' ? targets.value.customer : [];
  });
  /** The chosen customer's clusters, systems and checks (labels without the customer's name: it is the same). */
  protected readonly choices = computed(() => {
    const targets = this.targets();
    const customer = this.customerId();
    if (targets.state !== 'ready' || customer === null) return { clusters: [], systems: [], checks: [] };
    const own = (list: typeof targets.value.system) =>
      list
        .filter((t) => t.customerId === customer)
        .map((t) => ({ id: t.id, label: t.label.replace(/ \([^)]*\)$/, '') }));
    const checks = this.checks()
      .filter((c) => c.customerId === customer)
      .map((c) => ({ id: c.id, label: c.name }));
    return { clusters: own(targets.value.cluster), systems: own(targets.value.system), checks };
  });

  protected readonly submission = new DialogSubmission<StatusPage>(this.form);

  protected addItem(): void {
    this.form.controls.items.push(itemRow('', neutralName(this.form.controls.items.length)));
  }

  protected removeItem(index: number): void {
    this.form.controls.items.removeAt(index);
  }

  protected save(): void {
    if (!this.submission.ready()) return;
    const v = this.form.getRawValue();
    const items = v.items.map((row) => {
      const [kind, id] = row.target.split(':');
      return { [kind === 'cluster' ? 'clusterId' : 'systemId']: Number(id), displayName: row.displayName.trim() };
    }) as Array<{ systemId?: number; clusterId?: number; displayName: string }>;
    const fields = { title: v.title.trim(), items, announcement: v.announcement.trim() };
    const request = this.original
      ? this.api.update(this.original.id, fields)
      : this.api.create({ customerId: v.customerId as number, ...fields });
    // A field the form names maps by itself; an entry's picker is named by the kind it holds.
    this.submission.save(request, (err) => this.itemError(err));
  }

  /** The server names `items.<n>.systemId` or `.clusterId`: both are the entry's one picker here. */
  private itemError(err: unknown): boolean {
    const match = /^(items\.\d+)\.(systemId|clusterId)$/.exec(
      String((err as { error?: { details?: { field?: unknown } } }).error?.details?.field ?? ''),
    );
    const control = match ? this.form.get(`${match[1]}.target`) : null;
    if (!control) return false;
    const message = errorMessage(err).replace(/^items\.\d+\.\w+: /, '');
    control.setErrors({ server: message.charAt(0).toUpperCase() + message.slice(1) });
    control.markAsTouched();
    return true;
  }
}
