import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSnackBar } from '@angular/material/snack-bar';
import { filter, switchMap } from 'rxjs';

import { errorMessage } from '../../core/api-error';
import { AuthService } from '../../core/auth';
import { LOADING } from '../../core/loaded';
import { Refreshing } from '../../core/refresh';
import { mayWriteAt } from '../../core/rights';
import { confirmAction } from '../../ui/confirm-dialog';
import { Icon } from '../../ui/icon';
import { RowActions } from '../../ui/row-actions';
import { AgentSettingDialog, AgentSettingDialogData } from './agent-setting-dialog';
import { AgentSetting, AgentSettingsApi, AgentSettingsListing, SettingScope } from './agent-settings-api';
import { CardTable } from '../../ui/card-table';

/** What the console shows for a secret: that one is stored, never what. */
export const SECRET_MASK = '••• set';

/**
 * The key/value settings agents get with every answer to their reports (spec "Agent settings"), for one
 * cluster or one system; on a system also what is in effect there (its cluster's, with its own on top).
 * Accounts that may write at the customer add, change and delete; everyone else reads.
 */
@Component({
  selector: 'argus-agent-settings-editor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable, Icon, MatButtonModule, MatProgressBarModule, RowActions],
  templateUrl: './agent-settings-editor.html',
  styleUrl: './agent-settings-editor.scss',
})
export class AgentSettingsEditor {
  private readonly api = inject(AgentSettingsApi);
  private readonly auth = inject(AuthService);
  private readonly dialog = inject(MatDialog);
  private readonly snackBar = inject(MatSnackBar);

  readonly scope = input.required<SettingScope>();
  /** The customer the cluster or system belongs to: it decides who may write. */
  readonly customerId = input.required<number>();
  /** How the scope is named in titles ("cluster prod", "web-01"). */
  readonly label = input<string>('');

  protected readonly mask = SECRET_MASK;
  protected readonly listing = toSignal(toObservable(this.scope).pipe(switchMap((scope) => this.api.listing$(scope))), {
    initialValue: LOADING as Refreshing<AgentSettingsListing>,
  });
  protected readonly canWrite = computed(() => mayWriteAt(this.auth.user(), this.customerId()));
  protected readonly isSystem = computed(() => this.scope().type === 'system');
  /** Unique per scope: the customers page may unfold several clusters at once. */
  protected readonly titleId = computed(() => `agent-settings-${this.scope().type}-${this.scope().id}`);
  private readonly scopeLabel = computed(() => this.label() || (this.isSystem() ? 'this system' : 'this cluster'));

  protected add(): void {
    this.open({ scope: this.scope(), scopeLabel: this.scopeLabel() }, (saved) => `${saved.key} added`);
  }

  protected edit(setting: AgentSetting): void {
    this.open({ scope: this.scope(), scopeLabel: this.scopeLabel(), setting }, (saved) => `${saved.key} saved`);
  }

  protected remove(setting: AgentSetting): void {
    confirmAction(this.dialog, {
      title: `Delete ${setting.key}?`,
      message: this.isSystem()
        ? 'The agent of this system gets its cluster’s value for this key again, if the cluster has one.'
        : 'Agents of this cluster stop getting this key, except systems that set it themselves.',
      confirm: 'Delete',
    })
      .pipe(
        filter(Boolean),
        switchMap(() => this.api.remove(setting.id)),
      )
      .subscribe({
        next: () => this.snackBar.open(`${setting.key} deleted`, undefined, { duration: 4000 }),
        error: (err: unknown) => this.snackBar.open(errorMessage(err), 'Dismiss', { duration: 10000 }),
      });
  }

  private open(data: AgentSettingDialogData, done: (saved: AgentSetting) => string): void {
    this.dialog
      .open<AgentSettingDialog, AgentSettingDialogData, AgentSetting>(AgentSettingDialog, { data, width: '520px' })
      .afterClosed()
      .pipe(filter((saved): saved is AgentSetting => !!saved))
      .subscribe((saved) => this.snackBar.open(done(saved), undefined, { duration: 4000 }));
  }
}
