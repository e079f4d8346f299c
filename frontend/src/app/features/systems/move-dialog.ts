import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { takeUntilDestroyed, toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';

import { AuthService } from '@console/core/auth';
import { Loaded, LOADING } from '@console/core/loaded';
import { mayWriteAt } from '@console/core/rights';
import { byName, CustomersApi, Fleet } from '@console/shared/customers/customers-api';
import { SystemChanges, SystemDetail, SystemsApi } from '@console/shared/systems/systems-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { LoadState } from '@console/ui/load-state';

/** "No cluster" in the select: ids are positive, and a null option would show as an empty select. */
const NONE = 0;

export interface MoveDialogData {
  system: SystemDetail;
}

/** Moves a system to another cluster, or another customer (one the account may write at) and one of its clusters. */
@Component({
  selector: 'argus-move-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState, FORM_DIALOG, MatSelectModule],
  template: `
    <h2 mat-dialog-title>Move {{ system.name }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        @let state = fleet();
        <argus-load-state [state]="state" label="Loading customers" />
        @if (state.state === 'ready') {
          <mat-form-field>
            <mat-label>Customer</mat-label>
            <mat-select formControlName="customerId">
              @for (customer of customers(); track customer.id) {
                <mat-option [value]="customer.id">{{ customer.name }}</mat-option>
              }
            </mat-select>
          </mat-form-field>
          <mat-form-field subscriptSizing="dynamic" class="long-hint">
            <mat-label>Cluster</mat-label>
            <mat-select formControlName="clusterId">
              <mat-option [value]="none">No cluster</mat-option>
              @for (cluster of clusters(); track cluster.id) {
                <mat-option [value]="cluster.id">{{ cluster.name }}</mat-option>
              }
            </mat-select>
            @if (form.controls.clusterId.hasError('server')) {
              <mat-error>{{ form.controls.clusterId.getError('server') }}</mat-error>
            }
            <mat-hint>The agent keeps reporting; its history moves along.</mat-hint>
          </mat-form-field>
        }
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" submit="Move" [blocked]="fleet().state !== 'ready'" />
    </form>
  `,
})
export class MoveDialog {
  private readonly api = inject(SystemsApi);
  private readonly auth = inject(AuthService);
  protected readonly system = inject<MoveDialogData>(MAT_DIALOG_DATA).system;

  protected readonly fleet = toSignal(inject(CustomersApi).loadFleet(), { initialValue: LOADING as Loaded<Fleet> });
  protected readonly form = inject(FormBuilder).nonNullable.group({
    customerId: [this.system.customer.id],
    clusterId: [this.system.cluster?.id ?? NONE],
  });
  protected readonly none = NONE;
  private readonly value = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });

  /** Targets: customers the account may write at (the server checks both ends of a move). */
  protected readonly customers = computed(() => {
    const state = this.fleet();
    if (state.state !== 'ready') return [];
    return state.value.customers.filter((c) => mayWriteAt(this.auth.user(), c.id)).sort(byName);
  });
  protected readonly clusters = computed(() => {
    const state = this.fleet();
    const customerId = this.value().customerId;
    if (state.state !== 'ready') return [];
    return state.value.clusters.filter((c) => c.customerId === customerId).sort(byName);
  });

  protected readonly submission = new DialogSubmission<SystemDetail>(this.form);

  constructor() {
    // Another customer's clusters are not this one's: a new customer starts without a cluster.
    this.form.controls.customerId.valueChanges
      .pipe(takeUntilDestroyed())
      .subscribe(() => this.form.controls.clusterId.setValue(NONE));
  }

  protected save(): void {
    const { customerId, clusterId: picked } = this.form.getRawValue();
    const clusterId = picked === NONE ? null : picked;
    const changes: SystemChanges = {};
    if (customerId !== this.system.customer.id) Object.assign(changes, { customerId, clusterId });
    else if (clusterId !== (this.system.cluster?.id ?? null)) changes.clusterId = clusterId;
    this.submission.save(Object.keys(changes).length ? this.api.update(this.system.id, changes) : null);
  }
}
