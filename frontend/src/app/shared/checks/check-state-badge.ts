import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Icon, IconName } from '@console/ui/icon';
import { PILL_STYLES, PillTone } from '@console/ui/pill';
import { CHECK_STATE_LABELS, CheckState } from './checks-api';

const ICONS: Record<CheckState, IconName> = {
  DOWN: 'error',
  DEGRADED: 'warning',
  PENDING: 'pending',
  UP: 'ok',
  PAUSED: 'power',
};

const TONES: Record<CheckState, PillTone> = {
  DOWN: 'error',
  DEGRADED: 'warn',
  PENDING: 'neutral',
  UP: 'ok',
  PAUSED: 'outline',
};

/** A check's state as an icon and a word on a coloured pill (the systems' status colours): colour is never the only cue. */
@Component({
  selector: 'argus-check-state-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  template: `<argus-icon [name]="icon()" /><span>{{ label() }}</span>`,
  host: {
    '[class]': '"state state--" + state().toLowerCase() + " tone--" + tone()',
    '[attr.data-state]': 'state()',
  },
  styles: PILL_STYLES,
})
export class CheckStateBadge {
  readonly state = input.required<CheckState>();
  protected readonly label = computed(() => CHECK_STATE_LABELS[this.state()]);
  protected readonly icon = computed(() => ICONS[this.state()]);
  protected readonly tone = computed(() => TONES[this.state()]);
}
