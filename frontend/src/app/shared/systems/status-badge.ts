import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Icon, IconName } from '@console/ui/icon';
import { SystemStatus } from './systems-api';

/** What each status is called in the console (PENDING "Never reported", STANDBY "Powered off"). */
export const STATUS_LABELS: Record<SystemStatus, string> = {
  CRITICAL: 'Critical',
  OFFLINE: 'Offline',
  WARNING: 'Warning',
  ONLINE: 'Online',
  STANDBY: 'Powered off',
  PENDING: 'Never reported',
};

/** Worst first: the order of the status filter. */
export const STATUSES = Object.keys(STATUS_LABELS) as SystemStatus[];

const ICONS: Record<SystemStatus, IconName> = {
  CRITICAL: 'error',
  OFFLINE: 'offline',
  WARNING: 'warning',
  ONLINE: 'ok',
  STANDBY: 'power',
  PENDING: 'pending',
};

/** A system's status as an icon and a word on a coloured pill: colour is never the only cue. */
@Component({
  selector: 'argus-status-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  template: `<argus-icon [name]="icon()" /><span>{{ label() }}</span>`,
  host: { '[class]': '"status status--" + status().toLowerCase()', '[attr.data-status]': 'status()' },
  styles: `
    :host {
      display: inline-flex;
      align-items: center;
      gap: 4px;
      padding: 2px 10px 2px 6px;
      border-radius: var(--mat-sys-corner-full);
      font: var(--mat-sys-label-medium);
      white-space: nowrap;
      background: var(--mat-sys-surface-container-highest);
      color: var(--mat-sys-on-surface-variant);
    }
    argus-icon {
      width: 16px;
      height: 16px;
    }
    :host(.status--online) {
      background: var(--argus-ok-container);
      color: var(--argus-on-ok-container);
    }
    :host(.status--warning) {
      background: var(--argus-warn-container);
      color: var(--argus-on-warn-container);
    }
    :host(.status--critical) {
      background: var(--mat-sys-error);
      color: var(--mat-sys-on-error);
    }
    :host(.status--offline) {
      background: var(--mat-sys-error-container);
      color: var(--mat-sys-on-error-container);
    }
    :host(.status--standby) {
      background: transparent;
      box-shadow: inset 0 0 0 1px var(--mat-sys-outline);
    }
  `,
})
export class StatusBadge {
  readonly status = input.required<SystemStatus>();
  protected readonly label = computed(() => STATUS_LABELS[this.status()]);
  protected readonly icon = computed(() => ICONS[this.status()]);
}
