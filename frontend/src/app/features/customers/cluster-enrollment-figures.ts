import { ChangeDetectionStrategy, Component, computed, inject, input, linkedSignal } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { shortTime } from '@console/ui/time-ago';
import { ClusterEnrollment, EnrollmentApi } from './enrollment-api';
import { Notify } from '@console/ui/notify';
import { Submission } from '@console/ui/submission';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Why a cluster refused hosts in the last hour, in words. */
export function refusalReasons(refused: ClusterEnrollment['refusedLastHour']): string {
  const reasons: string[] = [];
  if (refused.hourlyLimit > 0) reasons.push(`${refused.hourlyLimit} over the hourly limit`);
  if (refused.otherCustomer > 0)
    reasons.push(`${refused.otherCustomer} already enrolled at another customer or cluster`);
  return reasons.join(', ');
}

/**
 * A cluster's enrolments in the last hour: new systems against the limit, the hosts refused
 * and why; for an ADMIN, the raise of the limit for the next hour.
 */
@Component({
  selector: 'argus-cluster-enrollment-figures',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule],
  template: `
    @let figures = status();
    <p class="figures" data-testid="enrollment-figures">
      {{ figures.enrolledLastHour }} of {{ figures.hourlyLimit }} new systems enrolled in the last hour.
      @if (figures.raise) {
        <span data-testid="enrollment-raise"
          >Limit raised to {{ figures.raise.hourlyLimit }} until {{ until(figures.raise.until) }}
          @if (figures.raise.by) {
            by {{ figures.raise.by }}
          }
          ; then {{ figures.defaultLimit }} again.</span
        >
      }
    </p>
    @if (figures.refusedLastHour.hosts > 0) {
      <p class="refused" role="status" data-testid="enrollment-refused">
        {{ refusedLine() }}
      </p>
    }
    @if (admin()) {
      <form class="raise" (submit)="$event.preventDefault(); raise()">
        <label [for]="inputId()">Hourly limit for the next hour</label>
        <input
          type="number"
          min="1"
          step="1"
          [id]="inputId()"
          [value]="proposed()"
          (input)="proposed.set($any($event.target).valueAsNumber)"
          data-testid="enrollment-limit-input"
        />
        <button mat-stroked-button type="submit" [disabled]="submission.busy()">Raise for 1 hour</button>
      </form>
    }
  `,
  styles: `
    :host {
      display: block;
      margin-top: 8px;
    }
    p {
      margin: 0 0 4px;
      font: var(--mat-sys-body-medium);
    }
    .refused {
      color: var(--mat-sys-error);
    }
    .raise {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px;
    }
    .raise input {
      width: 8em;
      padding: 6px 8px;
      font: inherit;
      color: var(--mat-sys-on-surface);
      background: var(--mat-sys-surface);
      border: 1px solid var(--mat-sys-outline);
      border-radius: var(--mat-sys-corner-extra-small);
    }
  `,
})
export class ClusterEnrollmentFigures {
  private readonly api = inject(EnrollmentApi);
  private readonly notify = inject(Notify);

  readonly status = input.required<ClusterEnrollment>();
  readonly clusterName = input.required<string>();
  /** Only an ADMIN raises a limit. */
  readonly admin = input(false);

  protected readonly inputId = computed(() => `enrollment-limit-${this.status().clusterId}`);
  protected readonly submission = new Submission();
  private readonly limitNow = computed(() => this.status().hourlyLimit);
  /**
   * The field shows the limit in effect (the figure beside it), until the administrator types another:
   * a different pre-filled number read as if it were the limit already.
   */
  protected readonly proposed = linkedSignal<number | null>(() => this.limitNow());

  protected readonly refusedLine = computed(() => {
    const refused = this.status().refusedLastHour;
    const hosts = plural(refused.hosts, 'host', 'hosts');
    const attempts = plural(refused.attempts, 'attempt', 'attempts');
    return `${hosts} refused in the last hour (${attempts}): ${refusalReasons(refused)}.`;
  });

  protected until(at: string): string {
    return shortTime(at);
  }

  protected raise(): void {
    const limit = this.proposed();
    const name = this.clusterName();
    if (limit === null || !Number.isInteger(limit) || limit < 1) {
      this.notify.refused('Enter a whole number of new systems per hour.');
      return;
    }
    this.submission.run(
      this.api.raise(this.status().clusterId, limit),
      (raised) => this.notify.done(`${name} enrols up to ${raised.hourlyLimit} new systems an hour for the next hour`),
      { refused: (err) => this.notify.refused(err) },
    );
  }
}
