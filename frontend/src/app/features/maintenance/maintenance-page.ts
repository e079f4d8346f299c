import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { RowActions } from '@console/ui/row-actions';
import { MaintenanceApi, MaintenanceWindow, scheduleText } from './maintenance-api';
import { WindowDialog, WindowDialogData } from './window-dialog';
import { Table } from '@console/ui/table';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

/** Maintenance windows: while one covers a system, it raises no alerts and sends no notifications. */
@Component({
  selector: 'argus-maintenance-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, Table, LoadState, MatButtonModule, RowActions],
  template: `
    <argus-page-header heading="Maintenance" [add]="mayCreate() ? 'New window' : null" (added)="create()">
      While a window covers a system, no alert is raised and nothing is sent for it; open alerts still resolve.
    </argus-page-header>
    @let state = windows();
    <argus-load-state [state]="state" label="Loading maintenance windows" />
    @if (state.state === 'ready') {
      @if (state.value.length === 0) {
        <p data-testid="empty">No maintenance windows.</p>
      } @else {
        <argus-table ruled [columns]="['Name', 'Applies to', 'Schedule', 'Now']" actions="Actions">
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
        </argus-table>
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
    this.confirmThen.delete({
      name: w.name,
      message: 'Alerts are raised again for what it covered.',
      action: () => this.api.remove(w.id),
      done: 'Window deleted',
    });
  }

  private open(data: WindowDialogData, message: string): void {
    this.formDialog.open(WindowDialog, { data, width: '600px' }, message);
  }
}
