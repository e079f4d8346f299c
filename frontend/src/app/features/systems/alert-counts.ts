import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { SystemSummary } from '@console/shared/systems/systems-api';

/** A system's open alerts as chips per severity ("2 critical"), or "None". */
@Component({
  selector: 'argus-alert-counts',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @let alerts = counts();
    @if (total() === 0) {
      <span class="none">None</span>
    } @else {
      @if (alerts.critical) {
        <span class="chip chip--error">{{ alerts.critical }} critical</span>
      }
      @if (alerts.warning) {
        <span class="chip chip--warn">{{ alerts.warning }} warning</span>
      }
      @if (alerts.info) {
        <span class="chip">{{ alerts.info }} info</span>
      }
    }
  `,
  styles: `
    :host {
      display: inline-flex;
      flex-wrap: wrap;
      gap: 4px;
    }
    .chip {
      text-transform: none;
      white-space: nowrap;
    }
    .none {
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class AlertCounts {
  readonly counts = input.required<SystemSummary['openAlerts']>();
  protected readonly total = computed(() => {
    const { critical, warning, info } = this.counts();
    return critical + warning + info;
  });
}
