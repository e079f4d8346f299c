import { DOCUMENT } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { Icon } from '@console/ui/icon';
import { Cluster, CustomersApi } from '@console/shared/customers/customers-api';
import { AGENT_ARCHES } from './enrollment-api';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { Notify } from '@console/ui/notify';
import { IconButton } from '@console/ui/icon-button';

/**
 * The one-line installer for a cluster (docs/protocol.md "Enrolment and the agent key": install.sh fetches the agent, its
 * config and the systemd unit). The server sends it built from PUBLIC_URL; this is the fallback from the
 * console's own origin for an answer without it. The key travels in a header that curl reads from the
 * pipe (`printf` is a shell builtin): never in a URL or on a command line. The script asks for sudo
 * itself when not run as root.
 */
export function installCommand(origin: string, key: string): string {
  const quoted = `'${key.replace(/'/g, `'\\''`)}'`;
  return `printf 'Argus-Enrollment-Key: %s\\n' ${quoted} | curl -fsSL -H @- '${origin}/api/agent/install.sh' | sh`;
}

/** The lines of the card that a host's installer needs, each with its copy button. */
const COPY_LINES = [
  { id: 'key', label: 'Enrollment key', testid: 'enrollment-key', tooltip: 'Copy key' },
  { id: 'command', label: 'Install command', testid: 'install-command', tooltip: 'Copy command' },
] as const;

/** A cluster's enrollment key and install command, each with a copy button, and the key rotation. */
@Component({
  selector: 'argus-cluster-enrollment',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, IconButton, MatButtonModule],
  template: `
    @for (line of lines(); track line.id) {
      <div class="line">
        <span class="label" [id]="line.id + '-' + cluster().id">{{ line.label }}</span>
        <code class="value" [attr.aria-labelledby]="line.id + '-' + cluster().id" [attr.data-testid]="line.testid">{{
          line.value
        }}</code>
        <argus-icon-button
          icon="copy"
          [tooltip]="line.tooltip"
          [label]="'Copy the ' + line.label.toLowerCase() + ' of ' + cluster().name"
          (pressed)="copy(line.value, line.label + ' copied')"
        />
      </div>
    }
    @if (agentBuilds(); as builds) {
      @if (builds.length === 0) {
        <p class="no-build" role="status" data-testid="no-agent-build">
          This server has no agent build yet, so the command cannot install the agent. Build one with
          <code>npm run build:agent</code> (it writes <code>agent-dist/</code>, or set <code>AGENT_DIST_DIR</code> to a
          directory of releases); the server offers it within 30 seconds, no restart needed.
        </p>
      } @else if (builds.length < arches.length) {
        <p class="field-note" data-testid="agent-builds">Agent builds on this server: {{ builds.join(', ') }} only.</p>
      }
    }
    <div class="foot">
      <p class="field-note">
        Run it on a Linux host with systemd, as root or as an account that may use sudo (it asks then). It installs and
        starts <code>argus-agent</code>, which enrolls the host in this cluster with its first report.
      </p>
      <button mat-button type="button" (click)="rotate()">
        <argus-icon matButtonIcon name="refresh" />
        Rotate key
      </button>
    </div>
  `,
  styles: `
    :host {
      display: block;
      padding: 12px 16px;
      border-radius: var(--mat-sys-corner-medium);
      background: var(--mat-sys-surface-container-low);
    }
    .line {
      display: grid;
      grid-template-columns: 130px minmax(0, 1fr) auto;
      align-items: center;
      gap: 8px;
    }
    .label {
      font: var(--mat-sys-label-medium);
      color: var(--mat-sys-on-surface-variant);
    }
    .value {
      font-family: var(--argus-mono);
      font-size: 0.85em;
      overflow-wrap: anywhere;
      user-select: all;
    }
    .no-build {
      margin: 4px 0;
      padding: 8px 12px;
      border-radius: var(--mat-sys-corner-small);
      background: var(--mat-sys-error-container);
      color: var(--mat-sys-on-error-container);
    }
    .foot {
      display: flex;
      align-items: center;
      justify-content: space-between;
      flex-wrap: wrap;
      gap: 8px;
      margin-top: 4px;
    }
    .foot .field-note {
      margin: 0;
      flex: 1 1 300px;
    }
    @media (max-width: 600px) {
      .line {
        grid-template-columns: minmax(0, 1fr) auto;
      }
      .label {
        grid-column: 1 / -1;
      }
    }
  `,
})
export class ClusterEnrollment {
  private readonly api = inject(CustomersApi);
  private readonly notify = inject(Notify);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly origin = inject(DOCUMENT).location.origin;

  /** A cluster whose answer carried its key (only for accounts that may write at its customer). */
  readonly cluster = input.required<Cluster>();
  /** The architectures the server has an agent build for; null while unknown. */
  readonly agentBuilds = input<readonly string[] | null>(null);
  protected readonly arches = AGENT_ARCHES;

  protected readonly key = computed(() => this.cluster().enrollmentKey ?? '');
  protected readonly command = computed(() => this.cluster().installCommand ?? installCommand(this.origin, this.key()));
  /** The two values to copy: the key, and the command that installs an agent with it. */
  protected readonly lines = computed(() =>
    COPY_LINES.map((line) => ({ ...line, value: line.id === 'key' ? this.key() : this.command() })),
  );

  protected copy(value: string, done: string): void {
    this.notify.copy(value, done, 'the text');
  }

  protected rotate(): void {
    const cluster = this.cluster();
    this.confirmThen.run({
      title: `Rotate the key of ${cluster.name}?`,
      message:
        'The old key stops enrolling new agents at once, and install commands copied before stop working. ' +
        'Hosts already enrolled keep reporting.',
      confirm: 'Rotate key',
      action: () => this.api.rotateEnrollmentKey(cluster.id),
      done: `New enrollment key for ${cluster.name}`,
    });
  }
}
