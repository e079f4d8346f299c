import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';

import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { Icon, IconName } from '@console/ui/icon';
import { StatusPageDialog, StatusPageDialogData } from './status-page-dialog';
import { StatusPage, StatusPagesApi } from './status-pages-api';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

/**
 * Settings → Status pages: a customer's read-only page at /status/<slug> that its
 * own people open without an account. The address is the key: copy it, rotate it, revoke it.
 */
@Component({
  selector: 'argus-status-pages-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, Icon, LoadState, MatButtonModule],
  template: `
    <argus-page-header heading="Public status pages" add="New status page" (added)="create()">
      A public, read-only page per customer: current state, incidents, 90 days of availability and maintenance of the
      systems and clusters you choose, under the names you give them. Anyone with the address can open it, without
      signing in.
    </argus-page-header>
    @let state = pages();
    <argus-load-state [state]="state" label="Loading status pages" />
    @if (state.state === 'ready') {
      @if (state.value.length === 0) {
        <p data-testid="empty">No status pages yet.</p>
      }
      <ul class="pages">
        @for (p of state.value; track p.id) {
          <li class="page" data-testid="status-page">
            <h2>{{ p.title }}</h2>
            <p class="meta">
              {{ p.customerName }} · {{ p.items.length }} {{ p.items.length === 1 ? 'entry' : 'entries' }}:
              {{ names(p) }}
            </p>
            @if (p.announcement) {
              <p class="announcement"><strong>Announcement:</strong> {{ p.announcement }}</p>
            }
            <p class="url">
              <a [href]="p.url" target="_blank" rel="noopener noreferrer" data-testid="status-url">{{ p.url }}</a>
            </p>
            <div class="buttons">
              @for (action of pageActions; track action.label) {
                <button mat-stroked-button type="button" (click)="action.run(p)">
                  <argus-icon matButtonIcon [name]="action.icon" />{{ action.label }}
                </button>
              }
            </div>
          </li>
        }
      </ul>
    }
  `,
  styles: `
    .pages {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 16px;
    }
    .page {
      border: 1px solid var(--mat-sys-outline-variant);
      border-radius: 12px;
      padding: 16px;
      min-width: 0;
    }
    .page h2 {
      margin: 0 0 4px;
      font: var(--mat-sys-title-medium);
      overflow-wrap: anywhere;
    }
    .meta,
    .announcement {
      margin: 0 0 8px;
      overflow-wrap: anywhere;
    }
    .url {
      margin: 0 0 12px;
      font-family: monospace;
      overflow-wrap: anywhere;
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
    }
  `,
})
export class StatusPagesPage {
  private readonly api = inject(StatusPagesApi);
  private readonly notify = inject(Notify);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  protected readonly pages = toSignal(this.api.pages$, { initialValue: LOADING as Refreshing<StatusPage[]> });
  /** What can be done with a published page, in the order of its buttons. */
  protected readonly pageActions: readonly { label: string; icon: IconName; run: (page: StatusPage) => void }[] = [
    { label: 'Copy address', icon: 'copy', run: (page) => this.copy(page) },
    { label: 'Edit', icon: 'edit', run: (page) => this.edit(page) },
    { label: 'New address', icon: 'refresh', run: (page) => this.rotate(page) },
    { label: 'Revoke', icon: 'delete', run: (page) => this.revoke(page) },
  ];

  protected names(page: StatusPage): string {
    return page.items.map((item) => item.displayName).join(', ');
  }

  protected copy(page: StatusPage): void {
    this.notify.copy(page.url, 'Address copied', 'the address');
  }

  protected create(): void {
    this.open({}, 'Status page published');
  }

  protected edit(page: StatusPage): void {
    this.open({ page }, 'Status page saved');
  }

  protected rotate(page: StatusPage): void {
    this.confirmThen.run({
      title: `Give ${page.title} a new address?`,
      message: 'The current address stops working at once; share the new one with the customer.',
      confirm: 'New address',
      action: () => this.api.rotate(page.id),
      done: 'New address made',
    });
  }

  protected revoke(page: StatusPage): void {
    this.confirmThen.run({
      title: `Revoke ${page.title}?`,
      message: 'The page is deleted and its address answers "not found" from now on.',
      confirm: 'Revoke',
      action: () => this.api.remove(page.id),
      done: 'Status page revoked',
    });
  }

  private open(data: StatusPageDialogData, message: string): void {
    this.formDialog.open(StatusPageDialog, { data, width: '720px' }, message);
  }
}
