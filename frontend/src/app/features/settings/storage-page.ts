import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { injectNow, TimeAgo } from '@console/ui/time-ago';
import { formatBytes, scheduleText, StorageApi, StorageJobState, StorageReport } from './storage-api';
import { Table } from '@console/ui/table';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

const STATE_LABELS: Record<StorageJobState, string> = {
  ok: 'OK',
  failing: 'Failing',
  late: 'Late',
  never: 'Never run',
};
// a job that never ran is not known to work: no green chip until its first success
const STATE_CHIPS: Record<StorageJobState, string> = {
  ok: 'chip--ok',
  failing: 'chip--error',
  late: 'chip--warn',
  never: '',
};

/**
 * Storage (administrators): how much the database and the samples take, how well they compress, and
 * TimescaleDB's policy jobs. A failing job stops compression, rollups or retention until it runs
 * again: the same state housekeeping logs and /api/health names.
 */
@Component({
  selector: 'argus-storage-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, Table, LoadState, TimeAgo],
  template: `
    <argus-page-header heading="Storage"
      >Disk used by the database, and the jobs that compress, roll up and expire the samples.</argus-page-header
    >
    @let state = report();
    <argus-load-state [state]="state" label="Loading storage" />
    @if (state.state === 'ready') {
      @let r = state.value;
      <dl class="usage" data-testid="usage">
        <div>
          <dt>Database</dt>
          <dd>{{ bytes(r.databaseBytes) }}</dd>
        </div>
        <div>
          <dt>Samples</dt>
          <dd>{{ bytes(r.metricsBytes) }}</dd>
        </div>
        @if (r.timescale) {
          <div>
            <dt>Compressed chunks</dt>
            <dd>{{ r.compressedChunks }} of {{ r.chunks }}</dd>
          </div>
          @if (r.compression; as c) {
            <div>
              <dt>Compression</dt>
              <dd>{{ bytes(c.beforeBytes) }} → {{ bytes(c.afterBytes) }} ({{ ratio(r) }}× smaller)</dd>
            </div>
          }
        }
      </dl>
      @if (!r.timescale) {
        <p data-testid="no-timescale">
          TimescaleDB is not installed: samples are kept in a plain table, without compression, rollups or retention
          jobs. Install it to keep months of history in little space.
        </p>
      } @else {
        <h2 id="jobs-title">Jobs</h2>
        <argus-table
          labelledBy="jobs-title"
          [columns]="['Job', 'Table', 'Runs', 'State', 'Last success', 'Next run', 'Last error']"
        >
          <tbody>
            @for (job of r.jobs; track job.id) {
              <tr data-testid="job">
                <td>{{ job.name }}</td>
                <td class="relation">{{ job.relation }}</td>
                <td>{{ schedule(job.scheduleSeconds) }}</td>
                <td>
                  <span class="chip {{ chips[job.state] }}" data-testid="job-state">{{ labels[job.state] }}</span>
                </td>
                <td><argus-time-ago [at]="job.lastSuccessAt" [now]="now()" /></td>
                <td><argus-time-ago [at]="job.nextStartAt" [now]="now()" /></td>
                <td class="error-text">{{ job.lastError ?? '' }}</td>
              </tr>
            } @empty {
              <tr>
                <td colspan="7">No policy jobs: the TimescaleDB step has not run (see the server's start-up log).</td>
              </tr>
            }
          </tbody>
        </argus-table>
      }
    }
  `,
  styles: `
    .usage {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 32px;
      margin: 0 0 16px;
    }
    .usage dt {
      font-size: 0.85rem;
    }
    .usage dd {
      margin: 0;
      font-size: 1.25rem;
    }
    .relation {
      font-family: var(--argus-mono, monospace);
      font-size: 0.9em;
    }
    .error-text {
      max-width: 32rem;
      overflow-wrap: anywhere;
    }
  `,
})
export class StoragePage {
  private readonly api = inject(StorageApi);
  protected readonly report = toSignal(this.api.report$, { initialValue: LOADING as Refreshing<StorageReport> });
  protected readonly now = injectNow();
  protected readonly labels = STATE_LABELS;
  protected readonly chips = STATE_CHIPS;
  protected readonly bytes = formatBytes;
  protected readonly schedule = scheduleText;

  protected ratio(r: StorageReport): string {
    return r.compression && r.compression.afterBytes > 0
      ? (r.compression.beforeBytes / r.compression.afterBytes).toFixed(1)
      : '–';
  }
}
