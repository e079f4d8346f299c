import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { AvailabilityPeriod, durationText } from './reports-api';

interface Segment {
  kind: AvailabilityPeriod['kind'] | 'absent';
  left: number;
  width: number;
}

/**
 * One system's range as a bar: up (green) underneath, down, maintenance, inactive and unknown
 * periods on top, and the time before the system existed left blank. A picture with a text
 * alternative: screen readers get the same facts as the table beside it.
 */
@Component({
  selector: 'argus-timeline-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="bar" role="img" [attr.aria-label]="label()">
      @for (s of segments(); track $index) {
        <span [class]="'segment segment--' + s.kind" [style.left.%]="s.left" [style.width.%]="s.width"></span>
      }
    </div>
  `,
  styles: `
    .bar {
      position: relative;
      height: 14px;
      min-width: 160px;
      border-radius: 3px;
      overflow: hidden;
      background: var(--argus-up, #2e7d32);
      outline: 1px solid var(--mat-sys-outline);
    }
    .segment {
      position: absolute;
      top: 0;
      bottom: 0;
      min-width: 1px;
    }
    .segment--down {
      background: #c62828;
    }
    .segment--maintenance {
      background: #1565c0;
    }
    .segment--inactive {
      background: #757575;
    }
    .segment--unknown {
      background: #bdbdbd;
    }
    .segment--absent {
      background: var(--mat-sys-surface-container-highest, #e0e0e0);
    }
  `,
})
export class TimelineBar {
  /** The report's range (ISO instants). */
  readonly from = input.required<string>();
  readonly to = input.required<string>();
  /** The part of the range the system existed, ms (it began at the end of the range minus this). */
  readonly periodMs = input.required<number>();
  readonly periods = input.required<AvailabilityPeriod[]>();

  protected readonly segments = computed<Segment[]>(() => {
    const from = Date.parse(this.from());
    const span = Math.max(1, Date.parse(this.to()) - from);
    const pct = (ms: number) => (100 * ms) / span;
    const absent = span - Math.min(span, this.periodMs());
    const out: Segment[] = absent > 0 ? [{ kind: 'absent', left: 0, width: pct(absent) }] : [];
    for (const p of this.periods()) {
      out.push({
        kind: p.kind,
        left: pct(Date.parse(p.from) - from),
        width: pct(Date.parse(p.to) - Date.parse(p.from)),
      });
    }
    return out;
  });

  protected readonly label = computed(() => {
    const sums = new Map<string, { ms: number; count: number }>();
    for (const p of this.periods()) {
      const sum = sums.get(p.kind) ?? { ms: 0, count: 0 };
      sum.ms += Date.parse(p.to) - Date.parse(p.from);
      sum.count += 1;
      sums.set(p.kind, sum);
    }
    const names: Record<string, string> = {
      down: 'down',
      maintenance: 'in maintenance',
      inactive: 'customer inactive',
      unknown: 'no data',
    };
    const parts = [...sums].map(
      ([kind, s]) => `${names[kind]} ${durationText(s.ms)} in ${s.count} period${s.count === 1 ? '' : 's'}`,
    );
    return `Timeline: ${parts.length ? parts.join('; ') : 'up throughout'}`;
  });
}
