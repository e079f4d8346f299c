import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Refreshing } from '@console/core/refresh';
import { absoluteTime, shortTime } from '@console/ui/time-ago';
import { LoadState } from '@console/ui/load-state';
import { Alert } from '@console/shared/alerts/alerts-api';
import {
  CHANNEL_TYPE_LABELS,
  DeliveryEvent,
  DeliveryLogEntry,
  DeliveryStatus,
} from '@console/shared/notifications/notifications-api';

export interface TimelineEntry {
  at: string;
  kind: 'raised' | 'delivery' | 'acknowledged' | 'resolved';
  title: string;
  status?: DeliveryStatus;
  detail?: string;
}

const EVENT_LABELS: Record<DeliveryEvent, string> = {
  raised: 'Raised',
  resolved: 'Resolved',
  acknowledged: 'Acknowledged',
  repeat: 'Repeat',
  escalated: 'Escalated',
  flapping: 'Flapping',
};
const STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  sent: 'Sent',
  failed: 'Failed',
  dropped: 'Dropped',
};
const STATUS_CHIPS: Record<DeliveryStatus, string> = {
  pending: '',
  sent: 'chip--ok',
  failed: 'chip--error',
  dropped: 'chip--warn',
};
// on one instant, the alert's own step comes before what it sent
const ORDER: Record<TimelineEntry['kind'], number> = { raised: 0, acknowledged: 1, resolved: 1, delivery: 2 };

function deliveryEntry(d: DeliveryLogEntry): TimelineEntry {
  // the earlier tries' statuses tell a flaky receiver from a dead one: "3 attempts (500, 503, 200)"
  const statuses = (d.attemptLog ?? []).map((a) => (a.status === null ? (a.error ? 'error' : 'ok') : String(a.status)));
  const attempts =
    `${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}` +
    (statuses.length > 1 ? ` (${statuses.join(', ')})` : '');
  const when = d.sentAt
    ? `sent ${shortTime(d.sentAt)}`
    : d.lastAttemptAt
      ? `last try ${shortTime(d.lastAttemptAt)}`
      : '';
  const detail = [
    CHANNEL_TYPE_LABELS[d.channel.type] ?? d.channel.type,
    d.recipient,
    attempts,
    d.lastStatus === null ? null : `HTTP ${d.lastStatus}`,
    d.lastError,
    when,
  ];
  return {
    at: d.createdAt,
    kind: 'delivery',
    title: `${EVENT_LABELS[d.event] ?? d.event} to ${d.channel.name}`,
    status: d.status,
    detail: detail.filter(Boolean).join(' · '),
  };
}

/** The alert's story, oldest first: raised, each delivery, acknowledged (until), resolved. */
export function timeline(alert: Alert, deliveries: DeliveryLogEntry[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ at: alert.startedAt, kind: 'raised', title: 'Raised' }];
  if (alert.acknowledgedAt) {
    const by = alert.acknowledgedBy?.name ?? 'a deleted account';
    entries.push({
      at: alert.acknowledgedAt,
      kind: 'acknowledged',
      title: `Acknowledged by ${by}${alert.ackUntil ? ` until ${shortTime(alert.ackUntil)}` : ''}`,
      detail: alert.ackNote ?? undefined,
    });
  }
  if (alert.resolvedAt) entries.push({ at: alert.resolvedAt, kind: 'resolved', title: 'Resolved' });
  entries.push(...deliveries.map(deliveryEntry));
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) =>
        Date.parse(a.entry.at) - Date.parse(b.entry.at) ||
        ORDER[a.entry.kind] - ORDER[b.entry.kind] ||
        a.index - b.index,
    )
    .map(({ entry }) => entry);
}

/** The "Notifications" section of an alert's page: what happened to it and what was sent where. */
@Component({
  selector: 'argus-alert-notifications',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState],
  template: `
    <section aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      @let state = deliveries();
      <argus-load-state [state]="state" label="Loading the notifications" />
      <ol class="timeline">
        @for (entry of entries(); track $index) {
          <li data-testid="timeline-entry" [attr.data-kind]="entry.kind">
            <time [attr.datetime]="entry.at" [title]="absolute(entry.at)">{{ short(entry.at) }}</time>
            <span class="title">{{ entry.title }}</span>
            @if (entry.status; as status) {
              <span class="chip {{ chips[status] }}" data-testid="delivery-status">{{ statusLabels[status] }}</span>
            }
            @if (entry.detail) {
              <span class="detail">{{ entry.detail }}</span>
            }
          </li>
        }
      </ol>
      @if (state.state === 'ready' && state.value.length === 0) {
        <p class="field-note" data-testid="no-deliveries">Nothing has been sent for this alert.</p>
      }
    </section>
  `,
  styles: `
    section {
      margin-top: 24px;
    }
    h2 {
      font: var(--mat-sys-title-large);
      margin: 0 0 8px;
    }
    .timeline {
      list-style: none;
      margin: 0 0 8px;
      padding: 0 0 0 16px;
      border-left: 2px solid var(--mat-sys-outline-variant);
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: 4px 12px;
      align-items: baseline;
      padding: 6px 0;
    }
    time {
      color: var(--mat-sys-on-surface-variant);
      min-width: 11rem;
    }
    .title {
      font-weight: 500;
    }
    .detail {
      flex-basis: 100%;
      padding-left: 11rem;
      color: var(--mat-sys-on-surface-variant);
      overflow-wrap: anywhere;
    }
  `,
})
export class AlertNotifications {
  readonly alert = input.required<Alert>();
  readonly deliveries = input.required<Refreshing<DeliveryLogEntry[]>>();
  protected readonly statusLabels = STATUS_LABELS;
  protected readonly chips = STATUS_CHIPS;
  protected readonly entries = computed(() => {
    const state = this.deliveries();
    return timeline(this.alert(), state.state === 'ready' ? state.value : []);
  });
  protected short(at: string): string {
    return shortTime(at);
  }
  protected absolute(at: string): string {
    return absoluteTime(at);
  }
}
