import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { AbstractControl, FormBuilder, ValidationErrors, Validators } from '@angular/forms';
import { MatAutocompleteModule } from '@angular/material/autocomplete';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { Customer, CustomerFields, CustomersApi } from '@console/shared/customers/customers-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

export interface CustomerDialogData {
  /** The customer to edit; absent to create one. */
  customer?: Customer;
}

/** The browser's IANA time zones, UTC first; a zone the browser does not know (but the customer has) stays choosable. */
export function timeZones(current?: string): string[] {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}

const MAX_SHOWN = 80;

/** Creates or edits a customer (ADMIN): name, notes, active, time zone. */
@Component({
  selector: 'argus-customer-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, MatAutocompleteModule, MatSlideToggleModule],
  templateUrl: './customer-dialog.html',
})
export class CustomerDialog {
  private readonly api = inject(CustomersApi);
  protected readonly original = inject<CustomerDialogData>(MAT_DIALOG_DATA).customer ?? null;

  private readonly zones = timeZones(this.original?.timeZone);
  private readonly knownZone = (control: AbstractControl<string>): ValidationErrors | null =>
    this.zones.includes(control.value) ? null : { zone: true };

  protected readonly form = inject(FormBuilder).nonNullable.group({
    name: [this.original?.name ?? '', [Validators.required, Validators.maxLength(200), Validators.pattern(/\S/)]],
    notes: [this.original?.notes ?? '', Validators.maxLength(10_000)],
    active: [this.original?.active ?? true],
    timeZone: [this.original?.timeZone ?? 'UTC', [Validators.required, this.knownZone]],
  });
  private readonly typedZone = toSignal(this.form.controls.timeZone.valueChanges, {
    initialValue: this.form.controls.timeZone.value,
  });
  /** Zones containing what was typed ("berl", "new york"); all of them while the field holds a valid zone. */
  protected readonly shownZones = computed(() => {
    const typed = this.typedZone().trim().toLowerCase().replaceAll(' ', '_');
    const matches =
      !typed || this.zones.includes(this.typedZone())
        ? this.zones
        : this.zones.filter((z) => z.toLowerCase().includes(typed));
    return matches.slice(0, MAX_SHOWN);
  });

  protected readonly submission = new DialogSubmission<Customer>(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    const value = this.form.getRawValue();
    const fields: CustomerFields = { ...value, name: value.name.trim(), notes: value.notes.trim() };
    const request = this.original ? this.update(this.original, fields) : this.api.createCustomer(fields);
    this.submission.save(request);
  }

  /** Only the fields that changed; null when nothing did. */
  private update(original: Customer, fields: CustomerFields): Observable<Customer> | null {
    const changes: Partial<CustomerFields> = {};
    for (const key of ['name', 'notes', 'active', 'timeZone'] as const) {
      if (fields[key] !== original[key]) Object.assign(changes, { [key]: fields[key] });
    }
    return Object.keys(changes).length ? this.api.updateCustomer(original.id, changes) : null;
  }
}
