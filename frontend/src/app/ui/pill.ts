/**
 * The look of a state pill (a system's status, a check's state): an icon and a word on a coloured
 * pill, so colour is never the only cue. A badge component takes these styles for its host and sets
 * the host's `tone--<tone>` class from what it shows.
 */
export type PillTone = 'neutral' | 'ok' | 'warn' | 'error' | 'error-soft' | 'outline';

export const PILL_STYLES = `
  :host {
    display: inline-flex;
    align-items: center;
    gap: 4px;
    padding: 2px 10px 2px 6px;
    border-radius: var(--mat-sys-corner-full);
    font: var(--mat-sys-label-medium);
    white-space: nowrap;
    background: var(--mat-sys-surface-container-highest);
    color: var(--mat-sys-on-surface-variant);
  }
  argus-icon {
    width: 16px;
    height: 16px;
  }
  :host(.tone--ok) {
    background: var(--argus-ok-container);
    color: var(--argus-on-ok-container);
  }
  :host(.tone--warn) {
    background: var(--argus-warn-container);
    color: var(--argus-on-warn-container);
  }
  :host(.tone--error) {
    background: var(--mat-sys-error);
    color: var(--mat-sys-on-error);
  }
  :host(.tone--error-soft) {
    background: var(--mat-sys-error-container);
    color: var(--mat-sys-on-error-container);
  }
  :host(.tone--outline) {
    background: transparent;
    box-shadow: inset 0 0 0 1px var(--mat-sys-outline);
  }
`;
