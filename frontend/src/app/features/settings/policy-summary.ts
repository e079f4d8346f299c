import { ChangeDetectionStrategy, Component, input } from '@angular/core';

import { SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import { Channel, Policy } from '@console/shared/notifications/notifications-api';

/** A routing policy to read (an operator's view of the global one, or a customer it may only see). */
@Component({
  selector: 'argus-policy-summary',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @let p = policy();
    <dl class="summary" data-testid="policy-summary">
      <div>
        <dt>Routes</dt>
        <dd>
          @if (p.routes.length) {
            <ul>
              @for (route of p.routes; track $index) {
                <li>{{ severityLabels[route.minSeverity] }} and up → {{ names(route.channelIds) }}</li>
              }
            </ul>
          } @else {
            None: nothing is sent.
          }
        </dd>
      </div>
      <div>
        <dt>Repeat</dt>
        <dd>
          {{ p.repeatMinutes ? 'Every ' + p.repeatMinutes + ' min while open and unacknowledged' : 'No repeat' }}
        </dd>
      </div>
      <div>
        <dt>Escalation</dt>
        <dd>
          {{
            p.escalateAfterMinutes
              ? 'After ' + p.escalateAfterMinutes + ' min unacknowledged, to ' + names(p.escalateChannelIds)
              : 'No escalation'
          }}
        </dd>
      </div>
    </dl>
  `,
  styles: `
    .summary {
      margin: 0 0 16px;
    }
    .summary > div {
      margin-bottom: 8px;
    }
    dt {
      font: var(--mat-sys-title-small);
    }
    dd {
      margin: 0;
    }
    ul {
      margin: 0;
      padding-left: 20px;
    }
  `,
})
export class PolicySummary {
  readonly policy = input.required<Policy>();
  /** Every channel the account sees, to name the ids. */
  readonly channels = input.required<Channel[]>();
  protected readonly severityLabels = SEVERITY_LABELS;

  protected names(ids: number[]): string {
    if (ids.length === 0) return 'no channel';
    return ids.map((id) => this.channels().find((c) => c.id === id)?.name ?? `channel #${id}`).join(', ');
  }
}
