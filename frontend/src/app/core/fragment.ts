import { DOCUMENT } from '@angular/common';
import { afterRenderEffect, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute } from '@angular/router';

/**
 * Brings the element the URL's `#fragment` names into view, and focus, once `ready()`: for pages
 * whose content arrives after the navigation (the router's own anchor scrolling runs too early).
 * Call from a component's constructor or field initialiser.
 */
export function revealFragment(ready: () => boolean): void {
  const fragment = toSignal(inject(ActivatedRoute).fragment, { initialValue: null });
  const document = inject(DOCUMENT);
  let revealed: string | null = null;
  afterRenderEffect(() => {
    const id = fragment();
    if (!id || id === revealed || !ready()) return;
    const element = document.getElementById(id);
    if (!element) return;
    revealed = id;
    // focus moves there too, so a keyboard or screen reader user lands where a sighted one looks
    if (!element.hasAttribute('tabindex')) element.setAttribute('tabindex', '-1');
    element.scrollIntoView({ block: 'start' });
    element.focus({ preventScroll: true });
  });
}
