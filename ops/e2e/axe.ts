/** axe-core in a Playwright page (the e2e accessibility guard): WCAG 2.1 A and AA violations, described. */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../backend/src/testing/script.js';

const AXE = path.join(REPO_ROOT, 'node_modules/axe-core/axe.min.js');
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Waits (at most 2 s) for the page's finite animations and transitions: a dialog's labels judged
 * mid-fade fail contrast on a loaded machine. Endless ones (spinners) are not waited for.
 */
async function animationsDone(page: Page): Promise<void> {
  await page.evaluate(async () => {
    // runs in the page (this file's TypeScript has no DOM types)
    interface Running {
      finished: Promise<unknown>;
      effect: { getComputedTiming(): { endTime?: number | string } } | null;
    }
    const dom = globalThis as unknown as { document: { getAnimations(): Running[] } };
    const finite = dom.document
      .getAnimations()
      .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime ?? Infinity)));
    const settled = Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 2000))]);
  });
}

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now. */
export async function violations(page: Page): Promise<Violation[]> {
  await animationsDone(page);
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async (tags) => {
    // runs in the page (this file's TypeScript has no DOM types)
    const page = globalThis as unknown as {
      document: unknown;
      axe: { run(context: unknown, options: object): Promise<{ violations: Violation[] }> };
    };
    const result = await page.axe.run(page.document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, WCAG_21_AA);
}

export function describeViolations(found: Violation[]): string {
  return found
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}`).join('\n')}`)
    .join('\n');
}
