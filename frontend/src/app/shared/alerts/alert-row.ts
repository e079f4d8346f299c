import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { RouterLink } from '@angular/router';

import { absoluteTime, shortTime, timeAgo } from '@console/ui/time-ago';
import { alertDuration, alertText } from './alert-text';
import { Alert, SEVERITY_CHIPS, SEVERITY_LABELS } from './alerts-api';

/** Severity chip, what fired, where, since when and who acknowledged it: one alert in a list. */
@Component({
  selector: 'argus-alert-summary',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink],
  template: `
    @let a = alert();
    <div class="head">
      <span class="chip {{ chips[a.severity] }}" data-testid="severity">{{ labels[a.severity] }}</span>
      <a class="rule" [routerLink]="['/alerts', a.id]">{{ a.ruleKey }}{{ a.instance ? ' · ' + a.instance : '' }}</a>
      @if (a.flapping) {
        <span
          class="chip"
          data-testid="flapping"
          title="Raised more than 5 times in an hour: it stays open until clear for 30 minutes"
          >flapping</span
        >
      }
      @if (showSystem()) {
        on <a [routerLink]="['/systems', a.systemId]" data-testid="system-link">{{ a.systemName }}</a>
        <span class="muted">({{ a.customerName }})</span>
      }
    </div>
    @if (a.message) {
      <p class="message" data-testid="alert-text">{{ text() }}</p>
    }
    <p class="meta muted">
      <span [title]="absolute(a.startedAt)">Raised {{ ago(a.startedAt) }}</span>
      @if (a.resolvedAt) {
        · <span [title]="absolute(a.resolvedAt)">resolved {{ ago(a.resolvedAt) }}</span> ·
        <span data-testid="duration">lasted {{ duration() }}</span>
      }
      @if (a.acknowledgedAt) {
        ·
        <span data-testid="ack-info" [title]="absolute(a.acknowledgedAt)"
          >acknowledged by {{ a.acknowledgedBy?.name ?? 'a deleted account' }} {{ ago(a.acknowledgedAt) }}</span
        >
        @if (a.ackUntil) {
          <span data-testid="ack-until" [title]="absolute(a.ackUntil)">until {{ short(a.ackUntil) }}</span>
        }
      }
    </p>
    @if (a.ackNote) {
      <p class="note" data-testid="ack-note">“{{ a.ackNote }}”</p>
    }
  `,
  styles: `
    :host {
      display: block;
      min-width: 0;
    }
    .head {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      align-items: baseline;
    }
    /* long mount paths and instance names wrap instead of pushing the actions off a phone's screen */
    .head,
    .message {
      overflow-wrap: anywhere;
    }
    .rule {
      font-weight: 500;
    }
    .message,
    .meta,
    .note {
      margin: 4px 0 0;
    }
    .muted {
      color: var(--mat-sys-on-surface-variant);
    }
    .note {
      font-style: italic;
    }
  `,
})
export class AlertSummary {
  readonly alert = input.required<Alert>();
  readonly now = input.required<number>();
  /** Off on a system's own page, where the system is said already. */
  readonly showSystem = input(true);
  protected readonly labels = SEVERITY_LABELS;
  protected readonly chips = SEVERITY_CHIPS;
  /** The text with its times in the customer's zone ("No report since 10:14 (12 min ago)"). */
  protected readonly text = computed(() => {
    const a = this.alert();
    return alertText(a.message, a.customerTimeZone, this.now());
  });
  protected readonly duration = computed(() => alertDuration(this.alert().startedAt, this.alert().resolvedAt));
  protected ago(at: string): string {
    return timeAgo(at, this.now());
  }
  protected absolute(at: string): string {
    return absoluteTime(at, this.alert().customerTimeZone);
  }
  protected short(at: string): string {
    return shortTime(at, this.alert().customerTimeZone);
  }
}
