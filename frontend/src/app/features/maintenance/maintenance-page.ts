import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Icon } from '@console/ui/icon';
import { RowActions } from '@console/ui/row-actions';
import { MaintenanceApi, MaintenanceWindow, scheduleText } from './maintenance-api';
import { WindowDialog, WindowDialogData } from './window-dialog';
import { CardTable } from '@console/ui/card-table';
import { LoadState } from '@console/ui/load-state';

/** Maintenance windows: while one covers a system, it raises no alerts and sends no notifications. */
@Component({
  selector: 'argus-maintenance-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable, Icon, LoadState, MatButtonModule, RowActions],
  template: `
    <header class="page-header page-header--actions">
      <div>
        <h1>Maintenance</h1>
        <p>While a window covers a system, no alert is raised and nothing is sent for it; open alerts still resolve.</p>
      </div>
      @if (mayCreate()) {
        <button mat-flat-button type="button" (click)="create()">
          <argus-icon matButtonIcon name="add" />New window
        </button>
      }
    </header>
    @let state = windows();
    <argus-load-state [state]="state" label="Loading maintenance windows" />
    @if (state.state === 'ready') {
      @if (state.value.length === 0) {
        <p data-testid="empty">No maintenance windows.</p>
      } @else {
        <div class="table-scroll">
          <table argusCardTable class="argus-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Applies to</th>
                <th>Schedule</th>
                <th>Now</th>
                <th><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              @for (w of state.value; track w.id) {
                <tr data-testid="window">
                  <td>{{ w.name }}</td>
                  <td>{{ scopeLabel(w) }}</td>
                  <td data-testid="schedule">{{ schedule(w) }}</td>
                  <td>
                    @if (w.activeNow) {
                      <span class="chip chip--warn" data-testid="active">In maintenance</span>
                    }
                  </td>
                  <td class="actions">
                    <argus-row-actions [label]="w.name" [allowed]="mayWrite(w)" (edit)="edit(w)" (delete)="remove(w)" />
                  </td>
                </tr>
              }
            </tbody>
          </table>
        </div>
      }
    }
  `,
  styles: `
    .actions {
      white-space: nowrap;
    }
  `,
})
export class MaintenancePage {
  private readonly api = inject(MaintenanceApi);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly auth = inject(AuthService);
  protected readonly windows = toSignal(this.api.windows$, {
    initialValue: LOADING as Refreshing<MaintenanceWindow[]>,
  });
  protected readonly schedule = scheduleText;
  protected readonly mayCreate = computed(() => {
    const user = this.auth.user();
    return !!user && (user.role === 'ADMIN' || (user.role === 'OPERATOR' && user.customerIds.length > 0));
  });

  protected mayWrite(w: MaintenanceWindow): boolean {
    return mayWriteAt(this.auth.user(), w.customerId);
  }

  protected scopeLabel(w: MaintenanceWindow): string {
    if (w.scope.type === 'customer') return w.customerName;
    return `${w.scope.type === 'cluster' ? 'Cluster' : 'System'} ${w.scope.name ?? '#' + w.scope.id} (${w.customerName})`;
  }

  protected create(): void {
    this.open({}, 'Window created');
  }

  protected edit(window: MaintenanceWindow): void {
    this.open({ window }, 'Window saved');
  }

  protected remove(w: MaintenanceWindow): void {
    this.confirmThen.run({
      title: `Delete ${w.name}?`,
      message: 'Alerts are raised again for what it covered.',
      confirm: 'Delete',
      action: () => this.api.remove(w.id),
      done: 'Window deleted',
    });
  }

  private open(data: WindowDialogData, message: string): void {
    this.formDialog.open(WindowDialog, { data, width: '600px' }, message);
  }
}
