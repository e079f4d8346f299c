import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Preview } from '@console/shared/rules/rules-api';

/**
 * A rule preview's answer, on the rules page and in the rule editor: the note, how many would fire, and
 * the systems listed (the server lists the first 100 by name: a rule can fire on a whole fleet); for a
 * forecast, when each would reach the threshold (soonest first).
 */
@Component({
  selector: 'argus-preview-list',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe],
  template: `
    @let p = preview();
    <p class="note">{{ p.note }}</p>
    @if (p.total === 0) {
      <p data-testid="preview-empty">No system would fire now.</p>
    } @else {
      <p data-testid="preview-total">{{ summary() }}</p>
      <ul data-testid="preview-list">
        @for (s of p.systems; track s.systemId + s.instance) {
          <li data-testid="preview-system">
            {{ s.systemName }}{{ s.instance ? ' ' + s.instance : '' }} ({{ s.customerName }}):
            {{
              s.projectedAt ? 'reaches it around ' + (s.projectedAt | date: 'EEE d MMM, HH:mm') : (s.value ?? 'silent')
            }}
          </li>
        }
      </ul>
    }
  `,
  styles: `
    .note {
      color: var(--mat-sys-on-surface-variant);
    }
    ul {
      margin: 4px 0;
      padding-left: 20px;
    }
  `,
})
export class PreviewList {
  readonly preview = input.required<Preview>();
  protected readonly summary = computed(() => {
    const { total, systems } = this.preview();
    const listed = total > systems.length ? `; the first ${systems.length} by name are listed` : '';
    return `${total} would fire now${listed}.`;
  });
}
