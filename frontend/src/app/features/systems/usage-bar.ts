import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

/** From here a figure's bar turns amber, and red from FULL_PCT: the value beside it says the same in text. */
export const HIGH_PCT = 80;
export const FULL_PCT = 90;

/** "91 %", or "—" when the system did not report the figure. */
export function percentText(value: number | null): string {
  return value === null ? '—' : `${Math.round(value)} %`;
}

/**
 * One figure at a glance: a small bar and its value in text (the colour only repeats what the text says).
 * The bar is hidden from screen readers, which read the value after the page's label; below 600 px only
 * the value stays.
 */
@Component({
  selector: 'argus-usage-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (value() !== null) {
      <span class="track" aria-hidden="true">
        <span [class]="'fill fill--' + level()" [style.width.%]="width()"></span>
      </span>
    }
    <span class="value" [attr.title]="detail()">{{ text() }}</span>
  `,
  styles: `
    :host {
      display: inline-flex;
      align-items: center;
      gap: 6px;
      min-width: 0;
    }
    .track {
      flex: 1 1 auto;
      max-width: 56px;
      min-width: 24px;
      height: 6px;
      border-radius: 3px;
      background: var(--mat-sys-surface-container-highest);
      /* the track's edge meets 3:1 against the page where the fill is short */
      outline: 1px solid var(--mat-sys-outline);
      overflow: hidden;
    }
    .fill {
      display: block;
      height: 100%;
      background: var(--mat-sys-primary);
    }
    /* fills of at least 3:1 against the track in both schemes (4.7:1 and 7:1 measured) */
    .fill--high {
      background: light-dark(#8f5500, #ffb74d);
    }
    .fill--full {
      background: var(--mat-sys-error);
    }
    .value {
      font-variant-numeric: tabular-nums;
      white-space: nowrap;
    }
    @media (max-width: 600px) {
      .track {
        display: none;
      }
    }
  `,
})
export class UsageBar {
  readonly value = input.required<number | null>();
  /** More about the figure, on hover (the fullest disk's mount point). */
  readonly detail = input<string | null>(null);

  protected readonly text = computed(() => percentText(this.value()));
  protected readonly width = computed(() => Math.min(100, Math.max(0, this.value() ?? 0)));
  protected readonly level = computed(() => {
    const value = this.value() ?? 0;
    return value >= FULL_PCT ? 'full' : value >= HIGH_PCT ? 'high' : 'normal';
  });
}
