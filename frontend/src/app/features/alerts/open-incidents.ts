import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { RouterLink } from '@angular/router';

import { Refreshing } from '@console/core/refresh';
import { Incident, incidentSystems, systemsText } from './incidents-api';
import { TimeAgo } from '@console/ui/time-ago';

/**
 * The open cluster incidents above the alerts: title, customer, since when, how many systems, and the
 * member alerts by system. Nothing while there are none (or while they load).
 */
@Component({
  selector: 'argus-open-incidents',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TimeAgo],
  template: `
    @let state = incidents();
    @if (state.state === 'error') {
      <p class="form-error" role="status" data-testid="incidents-error">
        Could not load the incidents ({{ state.message }}).
      </p>
    } @else if (state.state === 'ready') {
      @let open = openOnly(state.value);
      @if (open.length > 0) {
        <section class="incidents" aria-labelledby="incidents-heading" data-testid="incidents">
          <h2 id="incidents-heading">Incidents</h2>
          @if (state.stale) {
            <p class="form-error" role="status">Could not refresh the incidents ({{ state.stale }}).</p>
          }
          <ul class="incident-list" aria-label="Open incidents">
            @for (incident of open; track incident.id) {
              <li class="incident" data-testid="incident">
                <h3 class="title">{{ incident.title }}</h3>
                <p class="meta">
                  <span data-testid="incident-customer">{{ incident.customerName }}</span>
                  · since <argus-time-ago [at]="incident.startedAt" [now]="now()" /> ·
                  <span data-testid="incident-systems">{{ systems(incident) }}</span>
                </p>
                <ul class="members" [attr.aria-label]="'Alerts of ' + incident.title">
                  @for (member of incident.alerts; track member.id) {
                    <li data-testid="incident-alert">
                      <a [routerLink]="['/alerts', member.id]">{{ member.systemName }}</a>
                      <span class="chip" [class.chip--error]="member.state === 'open'">{{ member.state }}</span>
                    </li>
                  }
                </ul>
              </li>
            }
          </ul>
        </section>
      }
    }
  `,
  styles: `
    .incidents {
      margin-bottom: 16px;
    }
    h2 {
      margin: 0 0 8px;
    }
    .incident-list {
      list-style: none;
      padding: 0;
      margin: 0;
      display: grid;
      gap: 8px;
    }
    .incident {
      padding: 12px 16px;
      border: 1px solid var(--mat-sys-error);
      border-radius: var(--mat-sys-corner-medium);
      background: var(--mat-sys-surface-container-low);
    }
    .title {
      margin: 0;
      font: var(--mat-sys-title-medium);
    }
    .meta {
      margin: 4px 0 8px;
      color: var(--mat-sys-on-surface-variant);
    }
    .members {
      list-style: none;
      padding: 0;
      margin: 0;
      display: flex;
      flex-wrap: wrap;
      gap: 8px 16px;
    }
    .members li {
      display: inline-flex;
      gap: 6px;
      align-items: baseline;
    }
  `,
})
export class OpenIncidents {
  readonly incidents = input.required<Refreshing<Incident[]>>();
  readonly now = input.required<number>();

  /** The list asks for open ones; one that resolved since is not listed either. */
  protected openOnly(incidents: Incident[]): Incident[] {
    return incidents.filter((i) => i.state === 'open');
  }

  protected systems(incident: Incident): string {
    return systemsText(incidentSystems(incident));
  }
}
