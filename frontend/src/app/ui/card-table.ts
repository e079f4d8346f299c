import { DestroyRef, Directive, ElementRef, afterNextRender, inject } from '@angular/core';

/** A header cell whose only text is for screen readers (an actions column): its cells get no visible label. */
const UNLABELLED = '.sr-only, .visually-hidden, .cdk-visually-hidden';

/** The visible name of a header cell, or '' for one that is only read out. */
function headerLabel(th: Element): string {
  const text = (th.textContent ?? '').replace(/\s+/g, ' ').trim();
  const hidden = [...th.querySelectorAll(UNLABELLED)].map((e) => (e.textContent ?? '').trim()).join('');
  return hidden && hidden.replace(/\s+/g, '') === text.replace(/\s+/g, '') ? '' : text;
}

/** Gives every body cell the `data-label` of its column's header, which card mode shows beside the value. */
export function labelCells(table: HTMLTableElement): void {
  const headerRow = table.tHead?.rows[0];
  if (!headerRow) return;
  const labels = [...headerRow.cells].map(headerLabel);
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      [...row.cells].forEach((cell, i) => {
        const label = labels[i] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
      });
    }
  }
}

/**
 * A table that turns into a stack of cards under 600 px wide (styles.scss `.card-table`): one card a
 * row, each value labelled with its column's name, so a phone shows every column (the status
 * column was cut off at 390 px) and the desktop keeps its table. Works on plain tables and
 * mat-table alike; rows that arrive later (live data) are labelled as they come.
 */
@Directive({
  selector: 'table[argusCardTable]',
  host: { class: 'card-table' },
})
export class CardTable {
  constructor() {
    const table = inject<ElementRef<HTMLTableElement>>(ElementRef).nativeElement;
    const observer = new MutationObserver(() => labelCells(table));
    afterNextRender(() => {
      labelCells(table);
      // childList only: the labels this sets are attributes, so they do not wake it again
      observer.observe(table, { childList: true, subtree: true });
    });
    inject(DestroyRef).onDestroy(() => observer.disconnect());
  }
}
