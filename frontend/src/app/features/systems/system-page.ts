import { ChangeDetectionStrategy, Component, computed, effect, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatSlideToggleChange, MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Title } from '@angular/platform-browser';
import { Router, RouterLink } from '@angular/router';
import { switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Notify } from '@console/ui/notify';
import { Icon } from '@console/ui/icon';
import { askName } from '@console/ui/name-dialog';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { AgentSettingsEditor } from '@console/shared/agent-settings/agent-settings-editor';
import { SystemAlerts } from '@console/shared/alerts/system-alerts';
import { AgentRolloutFailure } from '@console/shared/agent-rollout/agent-rollout-failure';
import { AlertCounts } from './alert-counts';
import { MoveDialog, MoveDialogData } from './move-dialog';
import { StatusBadge } from './status-badge';
import { SystemMetrics } from './system-metrics';
import { SystemDetail, SystemsApi } from '@console/shared/systems/systems-api';
import { LoadState } from '@console/ui/load-state';

/** One system: status, host facts, the actions the account may take, and its charts. */
@Component({
  selector: 'argus-system-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    LoadState,
    AgentRolloutFailure,
    AgentSettingsEditor,
    SystemAlerts,
    AlertCounts,
    Icon,
    MatButtonModule,
    MatSlideToggleModule,
    RouterLink,
    StatusBadge,
    SystemMetrics,
    TimeAgo,
  ],
  templateUrl: './system-page.html',
  styleUrl: './system-page.scss',
  host: { class: 'detail-page' },
})
export class SystemPage {
  private readonly api = inject(SystemsApi);
  private readonly auth = inject(AuthService);
  private readonly dialog = inject(MatDialog);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly notify = inject(Notify);
  private readonly router = inject(Router);
  protected readonly now = injectNow();

  /** The route's `:id`. */
  readonly id = input.required<string>();
  /** `?tab=containers` or `processes`: the tab the figures open with (a quick search's link). */
  readonly tab = input<string | undefined>();
  /** `?container=…`: the container whose charts the Containers tab opens with. */
  readonly container = input<string | undefined>();
  private readonly systemId = computed(() => Number(this.id()));

  protected readonly system = toSignal(toObservable(this.systemId).pipe(switchMap((id) => this.api.system$(id))), {
    initialValue: LOADING as Refreshing<SystemDetail>,
  });
  private readonly current = computed(() => {
    const state = this.system();
    return state.state === 'ready' ? state.value : null;
  });
  /** ADMIN, or an OPERATOR granted the system's customer. */
  protected readonly canWrite = computed(() => {
    const system = this.current();
    return system !== null && mayWriteAt(this.auth.user(), system.customer.id);
  });
  protected readonly isAdmin = this.auth.isAdmin;

  constructor() {
    const title = inject(Title);
    effect(() => {
      const system = this.current();
      if (system) title.setTitle(`${system.name} · Argus`);
      // an alert or the Overview links a network check by its system id: its page is the check's
      if (system?.kind === 'check') void this.router.navigate(['/checks', system.id], { replaceUrl: true });
    });
  }

  protected rename(system: SystemDetail): void {
    askName(this.dialog, {
      title: `Rename ${system.name}`,
      label: 'Name',
      value: system.name,
      hint: `The hostname stays ${system.hostname}, as the agent reports it.`,
      confirm: 'Rename',
      save: (name) => this.api.update(system.id, { name }),
    }).subscribe((saved) => this.notify.done(`Renamed to ${saved.name}`));
  }

  protected move(system: SystemDetail): void {
    this.formDialog.open<MoveDialogData, SystemDetail>(
      MoveDialog,
      { data: { system }, width: '440px' },
      (moved) => `Moved to ${moved.customer.name}${moved.cluster ? ` · ${moved.cluster.name}` : ''}`,
    );
  }

  protected setOfflineAlerts(system: SystemDetail, change: MatSlideToggleChange): void {
    this.api.update(system.id, { offlineAlerts: change.checked }).subscribe({
      next: () => this.notify.done(change.checked ? 'Offline alerts on' : 'Offline alerts off'),
      error: (err: unknown) => {
        change.source.checked = !change.checked;
        this.notify.refused(err);
      },
    });
  }

  protected remove(system: SystemDetail): void {
    this.confirmThen.delete({
      name: system.name,
      message:
        'Its charts and history are deleted with it. Stop or uninstall the agent on the host first: an agent ' +
        'that keeps running may enroll again as a new system. This cannot be undone.',
      action: () => this.api.remove(system.id),
      done: `${system.name} deleted`,
      then: () => void this.router.navigateByUrl('/systems'),
    });
  }

  protected reEnroll(system: SystemDetail): void {
    this.confirmThen.run({
      title: `Re-enroll ${system.name}?`,
      message:
        'Argus forgets the agent key that binds this system to its host. The next report that carries a valid ' +
        'enrollment key binds the host anew: use this for a reinstalled host, or one whose agent lost its key.',
      confirm: 'Re-enroll',
      action: () => this.api.reEnroll(system.id),
      done: `${system.name} waits to be enrolled again`,
    });
  }
}
