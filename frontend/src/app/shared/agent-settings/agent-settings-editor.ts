import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { Icon } from '@console/ui/icon';
import { RowActions } from '@console/ui/row-actions';
import { AgentSettingDialog, AgentSettingDialogData } from './agent-setting-dialog';
import { AgentSetting, AgentSettingsApi, AgentSettingsListing, SettingScope } from './agent-settings-api';
import { CardTable } from '@console/ui/card-table';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { LoadState } from '@console/ui/load-state';

/** What the console shows for a secret: that one is stored, never what. */
export const SECRET_MASK = '••• set';

/**
 * The key/value settings agents get with every answer to their reports (docs/api.md "Agent settings and agent updates"), for one
 * cluster or one system; on a system also what is in effect there (its cluster's, with its own on top).
 * Accounts that may write at the customer add, change and delete; everyone else reads.
 */
@Component({
  selector: 'argus-agent-settings-editor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable, Icon, LoadState, MatButtonModule, RowActions],
  templateUrl: './agent-settings-editor.html',
  styleUrl: './agent-settings-editor.scss',
})
export class AgentSettingsEditor {
  private readonly api = inject(AgentSettingsApi);
  private readonly user = inject(AuthService).user;
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);

  readonly scope = input.required<SettingScope>();
  /** The customer the cluster or system belongs to: it decides who may write. */
  readonly customerId = input.required<number>();
  /** How the scope is named in titles ("cluster prod", "web-01"). */
  readonly label = input<string>('');

  protected readonly mask = SECRET_MASK;
  protected readonly listing = toSignal(toObservable(this.scope).pipe(switchMap((scope) => this.api.listing$(scope))), {
    initialValue: LOADING as Refreshing<AgentSettingsListing>,
  });
  protected readonly canWrite = computed(() => mayWriteAt(this.user(), this.customerId()));
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
    this.confirmThen.delete({
      name: setting.key,
      message: this.isSystem()
        ? 'The agent of this system gets its cluster’s value for this key again, if the cluster has one.'
        : 'Agents of this cluster stop getting this key, except systems that set it themselves.',
      action: () => this.api.remove(setting.id),
      done: `${setting.key} deleted`,
    });
  }

  private open(data: AgentSettingDialogData, done: (saved: AgentSetting) => string): void {
    this.formDialog.open(AgentSettingDialog, { data, width: '520px' }, done);
  }
}
