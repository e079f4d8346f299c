/**
 * End to end, the layout guard: every console page of the built console, with data,
 * at a phone's 390 px and a desktop's 1440 px, light and dark, must not overflow sideways: the
 * document does not scroll horizontally, and no visible element reaches past the viewport's left or
 * right edge (that also catches a table cut off inside its own scroll box, the complaint that started
 * this), and no label of a table in card mode runs past its cell into the next line. A full-page screenshot of each is saved to a temporary folder, named in the test output, for
 * a person to look at; it is not kept in the repository.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-layout-webhook-secret-0123456789ab';
const CRON_SECRET = 'e2e-layout-cron-secret-0123456789abcd';
const ENROLLMENT_KEY = 'e2e-layout-enrollment-key-0123456789';

const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

interface Overflow {
  /** How far the document scrolls sideways, in CSS pixels (0 when it does not). */
  documentOverflow: number;
  /** The outermost visible elements that reach past the viewport's left or right edge. */
  outside: string[];
}

/** What sticks out sideways on the page as it is now. */
function overflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    // runs in the page (this file's TypeScript has no DOM types)
    interface Box {
      left: number;
      right: number;
      width: number;
      height: number;
    }
    interface Node {
      tagName: string;
      id: string;
      classList: { length: number; [i: number]: string };
      textContent: string | null;
      parentElement: Node | null;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): Box;
      checkVisibility(options: object): boolean;
    }
    const dom = globalThis as unknown as {
      getComputedStyle(element: Node): { overflowX: string; clipPath: string };
      document: {
        scrollingElement: { scrollWidth: number; clientWidth: number };
        documentElement: { clientWidth: number };
        body: { querySelectorAll(selector: string): Iterable<Node> };
      };
    };
    const width = dom.document.documentElement.clientWidth;
    const sticking = new Set<Node>();
    for (const element of dom.document.body.querySelectorAll('*')) {
      if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = element.getBoundingClientRect();
      // screen-reader-only text is a clipped 1 px box, possibly a pixel off the edge
      if (box.width <= 1 || box.height <= 1) continue;
      if (box.right <= width + 0.5 && box.left >= -0.5) continue;
      // what an overflow-hidden or clip-path ancestor cuts away does not show (a screen-reader-only
      // table header, Material's paged tab labels); what a scroll box holds does, cut off at the edge
      // until scrolled: clipping counts only below the nearest scroll box (the app shell clips too)
      let [left, right] = [box.left, box.right];
      for (let a = element.parentElement; a; a = a.parentElement) {
        const style = dom.getComputedStyle(a);
        if (style.overflowX === 'auto' || style.overflowX === 'scroll') break;
        if (style.overflowX === 'hidden' || style.overflowX === 'clip' || style.clipPath !== 'none') {
          const clip = a.getBoundingClientRect();
          [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
        }
      }
      if (right - left > 1 && (right > width + 0.5 || left < -0.5)) sticking.add(element);
    }
    const outermost = [...sticking].filter((element) => !element.parentElement || !sticking.has(element.parentElement));
    const root = dom.document.scrollingElement;
    return {
      documentOverflow: Math.max(0, root.scrollWidth - root.clientWidth),
      // described inline: a named function here gets a helper of tsx's that the page does not have
      outside: outermost.slice(0, 12).map((element) => {
        const classes = Array.from({ length: Math.min(element.classList.length, 3) }, (_, i) => element.classList[i]);
        const testId = element.getAttribute('data-testid');
        const box = element.getBoundingClientRect();
        const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
        return (
          `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}` +
          `${classes.map((c) => '.' + c).join('')}${testId ? `[data-testid=${testId}]` : ''}` +
          ` (${Math.round(box.left)}..${Math.round(box.right)} of ${width}) "${text}"`
        );
      }),
    };
  });
}

/**
 * The cells of a table in card mode whose label (the cell's ::before, beside the value) ends below
 * the cell: a label on two lines beside a one-line value runs into the next row's label.
 */
function labelsPastTheirCell(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // runs in the page (this file's TypeScript has no DOM types)
    interface Cell {
      textContent: string | null;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): { top: number; bottom: number; height: number };
    }
    const dom = globalThis as unknown as {
      getComputedStyle(cell: Cell, pseudo?: string): { content: string; height: string; paddingTop: string };
      document: { querySelectorAll(selector: string): Iterable<Cell> };
    };
    const found: string[] = [];
    for (const cell of dom.document.querySelectorAll('.card-table td[data-label]')) {
      const label = dom.getComputedStyle(cell, '::before');
      const box = cell.getBoundingClientRect();
      if (label.content === 'none' || label.content === 'normal' || box.height === 0) continue;
      const labelBottom = box.top + parseFloat(dom.getComputedStyle(cell).paddingTop) + parseFloat(label.height);
      if (labelBottom > box.bottom + 0.5) {
        const value = (cell.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
        found.push(
          `"${cell.getAttribute('data-label')}" ends ${Math.round(labelBottom - box.bottom)} px below "${value}"`,
        );
      }
    }
    return found;
  });
}

describe('no page of the console overflows sideways, at 390 px and 1440 px, light and dark', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  let shots = '';
  let seeded = { systemId: 0, alertId: 0, statusPath: '' };

  /** Each viewport and scheme: load the page, wait for it, screenshot it, and judge it. */
  async function check(name: string, url: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
    const found: string[] = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto(`${app.url}${url}`);
      await ready(page);
      await page.waitForLoadState('networkidle');
      const labels = await labelsPastTheirCell(page);
      if (labels.length > 0)
        found.push(`${viewport.width} px: card labels run into the next line:\n    ${labels.join('\n    ')}`);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        const file = `${name.replace(/[^a-z0-9]+/gi, '-')}-${viewport.width}-${scheme}.png`;
        await page.screenshot({ path: path.join(shots, file), fullPage: true });
        const result = await overflow(page);
        if (result.documentOverflow > 0 || result.outside.length > 0) {
          found.push(
            `${viewport.width} px, ${scheme}: the document scrolls ${result.documentOverflow} px sideways;` +
              ` sticking out:\n    ${result.outside.join('\n    ')}`,
          );
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
    }
    assert.deepEqual(found, [], `${url} overflows:\n  ${found.join('\n  ')}`);
  }

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    seeded = await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-layout-host',
    });
    shots = await mkdtemp(path.join(os.tmpdir(), 'argus-layout-'));
    console.log(`# screenshots in ${shots}`);
    browser = await launchChromium();
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  it('the setup page (first visit)', () =>
    check('setup', '/setup', (p) =>
      p
        .getByRole('button', { name: /create/i })
        .first()
        .waitFor(),
    ));

  it('sign-in, forgotten password and reset pages', async () => {
    const admin = await createAccount(db.knex, { role: 'ADMIN', username: 'layout-admin' });
    await createAccount(db.knex, { role: 'VIEWER', username: 'viewer' });
    await check('forgot-password', '/forgot-password', (p) => p.getByRole('heading').first().waitFor());
    await check('reset-password', '/reset-password?token=not-a-real-token', (p) =>
      p.getByRole('heading').first().waitFor(),
    );
    await check('login', '/login', (p) => p.getByRole('button', { name: 'Sign in' }).waitFor());
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Argus services: all operational').waitFor();
  });

  const signedIn: [string, string | (() => string), (p: Page) => Promise<unknown>][] = [
    ['status', '/', (p) => p.getByText('Argus services: all operational').waitFor()],
    ['systems', '/systems', (p) => p.getByText('web-01').first().waitFor()],
    [
      'system',
      () => `/systems/${seeded.systemId}`,
      (p) => p.getByRole('heading', { name: 'web-01' }).first().waitFor(),
    ],
    ['alerts', '/alerts', (p) => p.getByRole('heading', { name: 'Incidents' }).waitFor()],
    ['alert', () => `/alerts/${seeded.alertId}`, (p) => p.getByText(/Part of incident: Site down: web/).waitFor()],
    ['rules', '/rules', (p) => p.getByText('cpu.high').first().waitFor()],
    ['maintenance', '/maintenance', (p) => p.getByText('Sunday patching').first().waitFor()],
    ['customers', '/customers', (p) => p.getByText('Acme').first().waitFor()],
    ['users', '/users', (p) => p.getByText('viewer').first().waitFor()],
    ['account', '/account', (p) => p.getByRole('heading').first().waitFor()],
    ['mail settings', '/settings/mail', (p) => p.getByRole('heading').first().waitFor()],
    ['agent rollout', '/settings/agent-rollout', (p) => p.getByRole('heading').first().waitFor()],
    ['alert settings', '/settings/alerts', (p) => p.getByRole('heading').first().waitFor()],
    ['forecast settings', '/settings/forecasts', (p) => p.getByLabel('Trend window (hours)').waitFor()],
    ['storage', '/settings/storage', (p) => p.getByTestId('usage').waitFor()],
    ['channels', '/settings/channels', (p) => p.getByText('Accounts who may see it').first().waitFor()],
    ['routing', '/settings/routing', (p) => p.getByRole('heading', { name: 'Global policy' }).waitFor()],
    ['audit log', '/settings/audit-log', (p) => p.getByTestId('audit-row').first().waitFor()],
    ['api reference', '/reference/api', (p) => p.getByTestId('reference').locator('.opblock').first().waitFor()],
    ['status pages', '/settings/status-pages', (p) => p.getByTestId('status-page').first().waitFor()],
    ['public status', () => seeded.statusPath, (p) => p.getByRole('heading', { name: 'Web shop' }).waitFor()],
    ['not found', '/no-such-page', (p) => p.getByRole('heading').first().waitFor()],
  ];
  for (const [name, url, ready] of signedIn) {
    it(`the ${name} page`, () => check(name, typeof url === 'string' ? url : url(), ready));
  }

  it('an alert with a long instance name wraps at 390 px and keeps Acknowledge on screen', async () => {
    const longMount = `/srv/${'customer-uploads-archive-'.repeat(5)}2026`;
    await db
      .knex('alerts')
      .where({ id: seeded.alertId })
      .update({ instance: longMount, message: `Filesystem ${longMount} is read-only` });
    await check('alerts long instance', '/alerts', (p) =>
      p.getByText(`Filesystem ${longMount} is read-only`).waitFor(),
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/alerts`);
    const row = page.getByTestId('alert').filter({ hasText: 'is read-only' });
    const acknowledge = row.getByRole('button', { name: 'Acknowledge' });
    await acknowledge.scrollIntoViewIfNeeded();
    const box = await acknowledge.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `Acknowledge at ${JSON.stringify(box)}`);
  });

  it('the sidebar: grouped into Monitor, Configure and Administer, every label whole', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${app.url}/`);
    for (const group of ['Monitor', 'Configure', 'Administer']) {
      await page.getByRole('navigation', { name: group }).waitFor();
    }
    const configure = page.getByRole('navigation', { name: 'Configure' });
    await configure.getByRole('link', { name: 'Notification channels' }).waitFor();
    // a cut label scrolls inside its box (text-overflow: ellipsis); a whole one does not
    const cut = await page
      .locator('mat-nav-list [matListItemTitle]')
      .evaluateAll((titles) =>
        titles
          .filter((title) => title.scrollWidth > title.clientWidth + 1)
          .map((title) => title.textContent?.trim() ?? ''),
      );
    assert.deepEqual(cut, []);
  });

  it('and the guard itself finds an overflow when there is one (a wide element, and one cut off in its box)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/no-such-page`);
    await page.getByRole('heading').first().waitFor();
    assert.deepEqual(await overflow(page), { documentOverflow: 0, outside: [] });
    const insert = (where: string, html: string) =>
      page.evaluate(
        ([where, html]) => {
          const dom = globalThis as unknown as {
            document: { querySelector(s: string): { insertAdjacentHTML(where: string, html: string): void } | null };
          };
          dom.document.querySelector(where ?? '')?.insertAdjacentHTML('beforeend', html ?? '');
        },
        [where, html],
      );

    // inside a scroll box the document stays put, but the element is still cut off at the edge
    await insert(
      'main',
      '<div style="overflow-x: auto"><p data-testid="clipped" style="width: 900px">clipped</p></div>',
    );
    const clipped = await overflow(page);
    assert.equal(clipped.documentOverflow, 0);
    assert.equal(clipped.outside.length, 1);
    assert.match(clipped.outside[0] ?? '', /^p\[data-testid=clipped\] /);

    // a card's two-line label beside a value held to one line runs past its cell
    await insert(
      'main',
      '<table class="card-table"><tbody><tr><td data-label="A column name long enough to wrap" style="height: 24px">' +
        'one line</td></tr></tbody></table>',
    );
    const labels = await labelsPastTheirCell(page);
    assert.equal(labels.length, 1, labels.join('\n'));
    assert.match(labels[0] ?? '', /^"A column name long enough to wrap" ends \d+ px below "one line"$/);

    // the page's own content scrolls inside the sidenav's box: a wide element outside it moves the document
    await insert('body', '<p data-testid="wide" style="width: 2000px">wide</p>');
    const wide = await overflow(page);
    assert.ok(wide.documentOverflow > 1000, `scrolls ${wide.documentOverflow} px`);
    assert.ok(
      wide.outside.some((o) => /\[data-testid=wide\] /.test(o)),
      wide.outside.join('\n'),
    );
  });
});
