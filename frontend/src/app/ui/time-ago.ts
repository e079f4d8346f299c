import { ChangeDetectionStrategy, Component, computed, input, Signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatTooltipModule } from '@angular/material/tooltip';
import { interval, map } from 'rxjs';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ABSOLUTE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const SHORT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "just now", "3 min ago", "5 h ago", "12 d ago"; "Never" without a time. */
export function timeAgo(at: string | null, now: number): string {
  if (!at) return 'Never';
  const diff = now - Date.parse(at);
  // Within a minute either way (clocks are never exactly in step) it is "just now".
  if (Math.abs(diff) < MINUTE) return 'just now';
  if (diff < 0) return 'in the future';
  if (diff < HOUR) return `${Math.floor(diff / MINUTE)} min ago`;
  if (diff < DAY) return `${Math.floor(diff / HOUR)} h ago`;
  return `${Math.floor(diff / DAY)} d ago`;
}

/** The date and time in the browser's locale, in `timeZone` (a customer's) or the browser's, for tooltips. */
export function absoluteTime(at: string, timeZone?: string): string {
  const format = timeZone
    ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium', timeZone })
    : ABSOLUTE;
  return `${format.format(new Date(at))}${timeZone ? ` (${timeZone})` : ''}`;
}

/** The date and time to the minute in the browser's locale ("22 Nov 2026, 14:00"), in `timeZone` or the browser's. */
export function shortTime(at: string, timeZone?: string): string {
  return (
    timeZone ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }) : SHORT
  ).format(new Date(at));
}

/** The current time, ticking every `periodMs`, so relative times move on between reloads. Call in an injection context. */
export function injectNow(periodMs = 15_000): Signal<number> {
  return toSignal(interval(periodMs).pipe(map(() => Date.now())), { initialValue: Date.now() });
}

/** A relative time ("3 min ago") with the absolute one in a tooltip. */
@Component({
  selector: 'argus-time-ago',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatTooltipModule],
  template: `
    @let time = at();
    @if (time) {
      <time [attr.datetime]="time" [matTooltip]="absolute()">{{ text() }}</time>
    } @else {
      <span>Never</span>
    }
  `,
})
export class TimeAgo {
  readonly at = input.required<string | null>();
  readonly now = input.required<number>();

  protected readonly text = computed(() => timeAgo(this.at(), this.now()));
  protected readonly absolute = computed(() => {
    const at = this.at();
    return at ? absoluteTime(at) : '';
  });
}
