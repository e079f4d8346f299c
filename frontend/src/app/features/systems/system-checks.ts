import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { switchMap } from 'rxjs';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { SeriesKey } from '@console/shared/systems/series';
import { ScriptCheck, SystemsApi } from '@console/shared/systems/systems-api';
import { LoadState } from '@console/ui/load-state';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { ofScriptCheck } from './latest-values';
import { SystemCharts } from '@console/shared/charts/system-charts';
import { PICKED_TABLE_STYLES, PickName } from './picked-table';

const PROBLEM_FIRST: Record<ScriptCheck['state'], number> = { CRITICAL: 0, WARNING: 1, UNKNOWN: 2, OK: 3 };

/**
 * A system's script checks: each check's state, message and last run as its agent last reported
 * them, and the charts of the check picked (its state and each figure of its performance data).
 */
@Component({
  selector: 'argus-system-checks',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [LoadState, PickName, SystemCharts, TimeAgo],
  template: `
    @let state = checks();
    <argus-load-state [state]="state" label="Loading the checks" />
    @if (state.state === 'ready') {
      @if (state.value.length === 0) {
        <p class="empty" data-testid="no-checks">No script check reported.</p>
      } @else {
        <div class="scroll">
          <table class="argus-table" aria-label="Script checks">
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">State</th>
                <th scope="col">Message</th>
                <th scope="col">Last run</th>
              </tr>
            </thead>
            <tbody>
              @for (check of state.value; track check.name) {
                <tr [class.picked]="check.name === shown()" [attr.data-check]="check.name">
                  <th scope="row">
                    <argus-pick-name [name]="check.name" [picked]="check.name === shown()" (pick)="pick(check.name)" />
                  </th>
                  <td>
                    <span [class]="'state state--' + check.state.toLowerCase()">{{ check.state }}</span>
                  </td>
                  <td class="message">{{ check.message || '—' }}</td>
                  <td class="ran"><argus-time-ago [at]="check.ranAt" [now]="now()" /></td>
                </tr>
              }
            </tbody>
          </table>
        </div>
        <p class="note">
          The first line each check printed at its last run. UNKNOWN: the check could not tell, timed out or crashed.
        </p>
      }
    }
    @if (shown(); as name) {
      <argus-system-charts
        [systemId]="systemId()"
        [seriesList]="chartSeries()"
        [only]="onlyShown()"
        [heading]="name"
        data-testid="check-charts"
      />
    }
  `,
  styles: [
    PICKED_TABLE_STYLES,
    `
      .argus-table th,
      .argus-table td {
        vertical-align: top;
      }
      .message {
        overflow-wrap: anywhere;
      }
      .ran {
        white-space: nowrap;
      }
      .state {
        font-weight: 500;
      }
      .state--critical {
        color: var(--mat-sys-error);
      }
      .state--warning,
      .state--unknown {
        color: var(--mat-sys-tertiary);
      }
    `,
  ],
})
export class SystemChecks {
  private readonly api = inject(SystemsApi);
  protected readonly now = injectNow();

  readonly systemId = input.required<number>();
  /** The system's series (the page read them for its tabs). */
  readonly series = input.required<SeriesKey[]>();

  protected readonly checks = toSignal(
    toObservable(this.systemId).pipe(switchMap((id) => this.api.scriptChecks$(id))),
    { initialValue: LOADING as Refreshing<ScriptCheck[]> },
  );
  private readonly picked = signal<string | null>(null);
  /** The check picked, or the first in trouble (else the first) until one is picked. */
  protected readonly shown = computed(() => {
    const state = this.checks();
    if (state.state !== 'ready') return this.picked();
    const byProblem = [...state.value].sort((a, b) => PROBLEM_FIRST[a.state] - PROBLEM_FIRST[b.state]);
    const picked = this.picked();
    return picked === '' ? null : (picked ?? byProblem[0]?.name ?? null);
  });

  protected readonly chartSeries = computed((): Refreshing<SeriesKey[]> => ({ state: 'ready', value: this.series() }));
  protected readonly onlyShown = computed(() => ofScriptCheck(this.shown() ?? ''));

  /** Picking the check shown hides its charts ('' : none shown). */
  protected pick(name: string): void {
    this.picked.set(this.shown() === name ? '' : name);
  }
}
