import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatTableModule } from '@angular/material/table';

import { Loaded, LOADING } from '@console/core/loaded';
import { Icon } from '@console/ui/icon';
import { TokenDialog } from './token-dialog';
import { ApiToken, TokensApi, TokenStatus } from './tokens-api';
import { CardTable } from '@console/ui/card-table';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { LoadState } from '@console/ui/load-state';
import { IconButton } from '@console/ui/icon-button';

const STATUS_CHIP: Record<TokenStatus, string> = {
  active: 'chip chip--ok',
  revoked: 'chip chip--error',
  expired: 'chip',
};

/** Personal API tokens: list, create (value shown once), revoke. */
@Component({
  selector: 'argus-tokens-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable, DatePipe, Icon, IconButton, LoadState, MatButtonModule, MatTableModule],
  templateUrl: './tokens-section.html',
  styleUrl: './tokens-section.scss',
})
export class TokensSection {
  private readonly tokensApi = inject(TokensApi);
  private readonly dialog = inject(MatDialog);
  private readonly confirmThen = inject(ConfirmThen);

  protected readonly tokens = toSignal(this.tokensApi.tokens$, { initialValue: LOADING as Loaded<ApiToken[]> });
  protected readonly columns = ['name', 'status', 'createdAt', 'expiresAt', 'lastUsedAt', 'actions'];

  protected chipClass(status: TokenStatus): string {
    return STATUS_CHIP[status];
  }

  protected create(): void {
    this.dialog.open(TokenDialog, { width: '520px', disableClose: true, autoFocus: 'first-tabbable' });
  }

  protected revoke(token: ApiToken): void {
    this.confirmThen.run({
      title: `Revoke “${token.name}”?`,
      message: 'Scripts and tools using this token stop working at once. This cannot be undone.',
      confirm: 'Revoke',
      action: () => this.tokensApi.revoke(token.id),
      done: `Token “${token.name}” revoked`,
    });
  }
}
