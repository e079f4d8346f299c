import { ChangeDetectionStrategy, Component, computed, effect, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { Title } from '@angular/platform-browser';
import { Router, RouterLink } from '@angular/router';
import { switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { SystemAlerts } from '@console/shared/alerts/system-alerts';
import { SystemCharts } from '@console/shared/charts/system-charts';
import { CheckStateBadge } from '@console/shared/checks/check-state-badge';
import { Check, CHECK_TYPE_LABELS, ChecksApi } from '@console/shared/checks/checks-api';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Icon } from '@console/ui/icon';
import { LoadState } from '@console/ui/load-state';
import { Notify } from '@console/ui/notify';
import { Table } from '@console/ui/table';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { CheckDialog, CheckDialogData } from './check-dialog';
import { checkTarget, intervalText, resultText } from './check-text';

/** One check: state, settings in a line, the newest result per location, its charts and alert history. */
@Component({
  selector: 'argus-check-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CheckStateBadge, Icon, LoadState, MatButtonModule, RouterLink, SystemAlerts, SystemCharts, Table, TimeAgo],
  templateUrl: './check-page.html',
  styleUrl: './check-page.scss',
  host: { class: 'detail-page' },
})
export class CheckPage {
  private readonly api = inject(ChecksApi);
  private readonly auth = inject(AuthService);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly notify = inject(Notify);
  private readonly router = inject(Router);
  protected readonly now = injectNow();

  /** The route's `:id`. */
  readonly id = input.required<string>();
  protected readonly checkId = computed(() => Number(this.id()));

  protected readonly check = toSignal(toObservable(this.checkId).pipe(switchMap((id) => this.api.check$(id))), {
    initialValue: LOADING as Refreshing<Check>,
  });
  private readonly current = computed(() => {
    const state = this.check();
    return state.state === 'ready' ? state.value : null;
  });
  protected readonly canWrite = computed(() => {
    const check = this.current();
    return check !== null && mayWriteAt(this.auth.user(), check.customerId);
  });
  protected readonly typeLabels = CHECK_TYPE_LABELS;
  protected readonly target = checkTarget;
  protected readonly result = resultText;
  protected readonly every = intervalText;

  constructor() {
    const title = inject(Title);
    effect(() => {
      const check = this.current();
      if (check) title.setTitle(`${check.name} · Argus`);
    });
  }

  protected edit(check: Check): void {
    this.formDialog.open<CheckDialogData, Check>(CheckDialog, { data: { check }, width: '640px' }, 'Check saved');
  }

  protected setEnabled(check: Check, enabled: boolean): void {
    this.api.update(check.id, { enabled }).subscribe({
      next: () => this.notify.done(enabled ? `${check.name} resumed` : `${check.name} paused`),
      error: (err: unknown) => this.notify.refused(err),
    });
  }

  protected remove(check: Check): void {
    this.confirmThen.delete({
      name: check.name,
      message: 'Its results and alerts are deleted with it. This cannot be undone.',
      action: () => this.api.remove(check.id),
      done: `${check.name} deleted`,
      then: () => void this.router.navigateByUrl('/checks'),
    });
  }
}
