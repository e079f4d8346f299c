import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Icon, IconName } from '@console/ui/icon';
import { CHECK_STATE_LABELS, CheckState } from './checks-api';

const ICONS: Record<CheckState, IconName> = {
  DOWN: 'error',
  DEGRADED: 'warning',
  PENDING: 'pending',
  UP: 'ok',
  PAUSED: 'power',
};

/** A check's state as an icon and a word on a coloured pill (the systems' status colours): colour is never the only cue. */
@Component({
  selector: 'argus-check-state-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  template: `<argus-icon [name]="icon()" /><span>{{ label() }}</span>`,
  host: { '[class]': '"state state--" + state().toLowerCase()', '[attr.data-state]': 'state()' },
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
    :host(.state--up) {
      background: var(--argus-ok-container);
      color: var(--argus-on-ok-container);
    }
    :host(.state--degraded) {
      background: var(--argus-warn-container);
      color: var(--argus-on-warn-container);
    }
    :host(.state--down) {
      background: var(--mat-sys-error);
      color: var(--mat-sys-on-error);
    }
    :host(.state--paused) {
      background: transparent;
      box-shadow: inset 0 0 0 1px var(--mat-sys-outline);
    }
  `,
})
export class CheckStateBadge {
  readonly state = input.required<CheckState>();
  protected readonly label = computed(() => CHECK_STATE_LABELS[this.state()]);
  protected readonly icon = computed(() => ICONS[this.state()]);
}
