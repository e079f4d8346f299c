/** Layout checks of the e2e tests: what reaches past the right edge of the window. */
import type { Page } from 'playwright-core';

/** What the probe touches of the browser's DOM (the tests' tsconfig has no DOM types). */
interface BrowserDocument {
  documentElement: { clientWidth: number };
  querySelectorAll(
    selector: string,
  ): Iterable<{ tagName: string; className: unknown; getBoundingClientRect(): { right: number } }>;
}

/** The elements inside `selector` that end past the window's right edge (tag.class each): none when it fits. */
export function pastTheRightEdge(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((inside) => {
    const document = (globalThis as unknown as { document: BrowserDocument }).document;
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll(`${inside} *`)]
      .filter((e) => e.getBoundingClientRect().right > width + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).replace(/\s+/g, '.')}`);
  }, selector);
}
