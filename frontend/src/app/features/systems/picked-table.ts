import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';

/**
 * What the system page's Checks and Containers tabs share: a table of named rows, one of which is
 * picked and has its charts below the table. `PickName` is a row's name cell (a button that picks
 * the row, pressed while it is picked); `PICKED_TABLE_STYLES` the table's look, closer than the
 * console's other tables (many short rows) and narrower still on a phone, so it fits 390 px.
 */
@Component({
  selector: 'argus-pick-name',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <button
      type="button"
      class="name mono"
      [attr.aria-pressed]="picked()"
      [attr.aria-label]="'Charts of ' + name()"
      (click)="pick.emit()"
    >
      {{ name() }}
    </button>
  `,
  styles: `
    .name {
      all: unset;
      cursor: pointer;
      color: var(--mat-sys-primary);
      text-decoration: underline;
      overflow-wrap: anywhere;
    }
    .name:focus-visible {
      outline: 2px solid var(--mat-sys-primary);
      outline-offset: 2px;
    }
  `,
})
export class PickName {
  readonly name = input.required<string>();
  readonly picked = input(false);
  readonly pick = output();
}

/** The look of a table of picked rows: `<div class="scroll"><table class="argus-table">`, `.empty`, `.note`. */
export const PICKED_TABLE_STYLES = `
  .scroll {
    overflow-x: auto;
  }
  .argus-table th,
  .argus-table td {
    padding: 8px;
  }
  thead th {
    font: var(--mat-sys-title-small);
    color: var(--mat-sys-on-surface-variant);
  }
  tr.picked {
    background: var(--mat-sys-surface-container-high);
  }
  .empty,
  .note {
    color: var(--mat-sys-on-surface-variant);
  }
  .note {
    font: var(--mat-sys-body-small);
  }
  @media (max-width: 600px) {
    .argus-table th,
    .argus-table td {
      padding: 8px 4px;
    }
  }
`;
