import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';

import { errorMessage } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { RowActions } from '@console/ui/row-actions';
import { SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import {
  Channel,
  CHANNEL_TYPE_LABELS,
  ChannelTestResult,
  NotificationsApi,
} from '@console/shared/notifications/notifications-api';
import { ChannelDialog, ChannelDialogData } from './channel-dialog';
import { Table } from '@console/ui/table';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';
import { IconButton } from '@console/ui/icon-button';

/**
 * "Test to Ops Slack: delivered (HTTP 200)." or "Test to Ops Slack: failed: rejected (HTTP 500)." The
 * server answers only the outcome and the status; a refusal adds what the policy refuses.
 */
export function testResultText(channel: Channel, result: ChannelTestResult): string {
  const status = result.status === null ? '' : ` (HTTP ${result.status})`;
  const why =
    result.outcome === 'refused by policy'
      ? ': Argus does not send to internal, special-purpose or its own addresses (ARGUS_ALLOW_PRIVATE_WEBHOOKS allows internal receivers)'
      : '';
  return `Test to ${channel.name}: ${result.outcome}${status}${why}.`;
}

/** Notification channels: where alert events go (e-mail, webhooks, chat); routing picks them per severity. */
@Component({
  selector: 'argus-channels-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [IconButton, LoadState, PageHeader, RowActions, Table],
  template: `
    <argus-page-header heading="Notification channels" [add]="mayCreate() ? 'New channel' : null" (added)="create()">
      Where alert events are sent. Routing decides which channels an alert of each severity goes to.
    </argus-page-header>
    <p class="test-result" role="status" data-testid="test-result" [class.failed]="testFailed()">{{ testText() }}</p>
    @let state = channels();
    <argus-load-state [state]="state" label="Loading notification channels" />
    @if (state.state === 'ready') {
      @if (state.value.length === 0) {
        <p data-testid="empty">No notification channels.</p>
      } @else {
        <argus-table
          ruled
          label="Notification channels"
          [columns]="['Name', 'Type', 'Customer', 'Target', 'Minimum severity', 'Enabled', 'Signing secret']"
          actions="Actions"
        >
          <tbody>
            @for (c of state.value; track c.id) {
              <tr data-testid="channel">
                <td>{{ c.name }}</td>
                <td>{{ typeLabels[c.type] }}</td>
                <td data-testid="customer">{{ c.customerName ?? 'All customers' }}</td>
                <td class="target" data-testid="target">{{ c.target ?? c.targetHint }}</td>
                <td>{{ severityLabels[c.minSeverity] }} and up</td>
                <td>
                  <span class="chip" [class.chip--ok]="c.enabled" data-testid="enabled">{{
                    c.enabled ? 'Enabled' : 'Disabled'
                  }}</span>
                </td>
                <td data-testid="secret">{{ c.hasSecret ? 'Set' : 'None' }}</td>
                <td class="actions">
                  <argus-row-actions [label]="c.name" [allowed]="mayWrite(c)" (edit)="edit(c)" (delete)="remove(c)">
                    @if (mayWrite(c)) {
                      <argus-icon-button
                        icon="send"
                        tooltip="Send test"
                        [label]="'Send test to ' + c.name"
                        [disabled]="testing() === c.id"
                        (pressed)="test(c)"
                      />
                    }
                  </argus-row-actions>
                </td>
              </tr>
            }
          </tbody>
        </argus-table>
      }
    }
  `,
  styles: `
    td {
      vertical-align: middle;
    }
    .actions {
      white-space: nowrap;
    }
    .test-result:empty {
      display: none;
    }
    .test-result {
      margin: 0 0 16px;
    }
    .test-result.failed {
      color: var(--mat-sys-error);
    }
  `,
})
export class ChannelsPage {
  private readonly api = inject(NotificationsApi);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly auth = inject(AuthService);
  protected readonly channels = toSignal(this.api.channels$, { initialValue: LOADING as Refreshing<Channel[]> });
  protected readonly typeLabels = CHANNEL_TYPE_LABELS;
  protected readonly severityLabels = SEVERITY_LABELS;
  /** ADMIN (global channels too), or an OPERATOR with at least one customer. */
  protected readonly mayCreate = computed(() => {
    const user = this.auth.user();
    return !!user && (user.role === 'ADMIN' || (user.role === 'OPERATOR' && user.customerIds.length > 0));
  });
  /** The channel whose test is on its way. */
  protected readonly testing = signal<number | null>(null);
  protected readonly testText = signal('');
  protected readonly testFailed = signal(false);

  /** A global channel is the administrators'; a customer's, its writers'. */
  protected mayWrite(channel: Channel): boolean {
    const user = this.auth.user();
    return channel.customerId === null ? user?.role === 'ADMIN' : mayWriteAt(user, channel.customerId);
  }

  protected create(): void {
    this.open({}, 'Channel created');
  }

  protected edit(channel: Channel): void {
    this.open({ channel }, 'Channel saved');
  }

  protected test(channel: Channel): void {
    this.testing.set(channel.id);
    this.testText.set(`Sending a test to ${channel.name}…`);
    this.testFailed.set(false);
    this.api.testChannel(channel.id).subscribe({
      next: (result) => {
        this.testing.set(null);
        this.testFailed.set(!result.ok);
        this.testText.set(testResultText(channel, result));
      },
      error: (err: unknown) => {
        this.testing.set(null);
        this.testFailed.set(true);
        this.testText.set(`Test to ${channel.name} failed: ${errorMessage(err)}`);
      },
    });
  }

  protected remove(channel: Channel): void {
    this.confirmThen.delete({
      name: channel.name,
      message: 'Policies that route to it forget it. Its past deliveries stay in the alerts’ logs.',
      action: () => this.api.removeChannel(channel.id),
      done: 'Channel deleted',
    });
  }

  private open(data: ChannelDialogData, message: string): void {
    this.formDialog.open(ChannelDialog, { data, width: '560px' }, message);
  }
}
