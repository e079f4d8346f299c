import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Icon, IconName } from '@console/ui/icon';
import { PILL_STYLES, PillTone } from '@console/ui/pill';
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

const TONES: Record<SystemStatus, PillTone> = {
  CRITICAL: 'error',
  OFFLINE: 'error-soft',
  WARNING: 'warn',
  ONLINE: 'ok',
  STANDBY: 'outline',
  PENDING: 'neutral',
};

/** A system's status as an icon and a word on a coloured pill: colour is never the only cue. */
@Component({
  selector: 'argus-status-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  template: `<argus-icon [name]="icon()" /><span>{{ label() }}</span>`,
  host: {
    '[class]': '"status status--" + status().toLowerCase() + " tone--" + tone()',
    '[attr.data-status]': 'status()',
  },
  styles: PILL_STYLES,
})
export class StatusBadge {
  readonly status = input.required<SystemStatus>();
  protected readonly label = computed(() => STATUS_LABELS[this.status()]);
  protected readonly icon = computed(() => ICONS[this.status()]);
  protected readonly tone = computed(() => TONES[this.status()]);
}
