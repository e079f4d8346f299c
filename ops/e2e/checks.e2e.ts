/**
 * End to end, a network check as a person sets it up and watches it: the built console behind
 * nginx, the real server running its checks (ARGUS_ALLOW_PRIVATE_CHECKS lets them reach the test's
 * own HTTP server on loopback). The dialog tries the settings from the server before saving (a
 * metadata address refused with the policy's words, the shop answered with its status, time and
 * keyword), the Checks page follows the check UP, DOWN while the test's server is stopped and UP
 * again once it is back, without a reload; the check page shows the newest result per location,
 * its response-time chart and that result following each run live (no reload), the charts at every
 * range and the alert the evaluation raised; a viewer reads without a write
 * button; the quick search and the Overview find it. Axe and the 390 px width are checked on both
 * pages and the dialog.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { freePort } from '../../backend/src/testing/net.js';
import { ensureCheckRules } from '../../db/seed-rules.js';
import { describeViolations, violations } from './axe.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-checks-webhook-secret-0123456789';
const CRON_SECRET = 'e2e-checks-cron-secret-012345678901';
const ENROLLMENT_KEY = 'e2e-checks-enrollment-key-01234567';
/** A check's state turns at its next run: the interval is 20 s, so a change shows within about that. */
const STATE_WAIT_MS = 45_000;

/** The shop the check looks at: started and stopped by the test, always on the same loopback port. */
class Shop {
  private server: http.Server | null = null;
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    const server = http.createServer((_req, res) => res.end('<h1>The shop is open</h1>'));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Clicks the dialog's "Try it now" and waits until its result says `expected`. A wait that times out
 * fails with what the dialog showed at that moment (the result, or the refusal on its error line).
 */
async function tryItNow(dialog: Locator, expected: RegExp): Promise<void> {
  await dialog.getByRole('button', { name: 'Try it now' }).click();
  try {
    await dialog.getByTestId('try-result').getByText(expected).waitFor();
  } catch (error) {
    const shown = await dialog.innerText({ timeout: 1_000 }).catch(() => '(the dialog could not be read)');
    throw new Error(`"Try it now" did not answer ${expected}; the dialog showed:\n${shown}`, { cause: error });
  }
}

describe('e2e: a network check, set up and watched in the console', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shop: Shop;
  let checkId: number;

  const signIn = async (target: Page, account: { email: string; password: string }) => {
    await target.goto(`${app.url}/login`);
    await target.getByLabel('E-mail or username').fill(account.email);
    await target.getByLabel('Password', { exact: true }).fill(account.password);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.getByText('Argus services: all operational').waitFor();
  };

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, {
      WEBHOOK_SECRET,
      CRON_SECRET,
      ARGUS_ALLOW_PRIVATE_CHECKS: 'true',
    });
    await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-checks-host',
    });
    await ensureCheckRules(db.knex);
    shop = new Shop(await freePort());
    await shop.start();
    browser = await launchChromium();
    // bypassCSP: axe is injected as a script, which the console's CSP refuses
    context = await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, await createAccount(db.knex, { role: 'ADMIN', username: 'checks-admin' }));
  });
  after(async () => {
    await browser?.close();
    await shop?.stop();
    await app?.stop();
    await db?.drop();
  });

  const row = () => page.locator('tr[data-check="Shop front"]');
  const stateOfRow = (state: string) => row().locator(`argus-check-state-badge[data-state="${state}"]`);

  it('tries the settings from the server in the dialog, then creates the check', async () => {
    await page.goto(`${app.url}/checks`);
    await page.getByTestId('empty').waitFor();
    await page.getByRole('button', { name: 'New check' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Shop front');
    await dialog.getByRole('combobox', { name: 'Customer' }).click();
    await page.getByRole('option', { name: 'Acme' }).click();
    const url = dialog.getByLabel('URL');
    const result = dialog.getByTestId('try-result');

    // a target the policy refuses even with the opt-in: the server's words, not a guess of the console
    await url.fill('http://169.254.169.254/latest/meta-data/');
    await tryItNow(dialog, /^Down: refused by policy: /);
    assert.match((await result.textContent()) ?? '', /cloud metadata/);

    await url.fill(`http://127.0.0.1:${shop.port}/`);
    await dialog.getByLabel('Keyword (optional)').fill('shop is open');
    await tryItNow(dialog, /^Up: HTTP 200 · [\d.]+ ms · keyword as expected$/);

    await dialog.getByLabel('Interval (s)', { exact: true }).fill('20');
    await dialog.getByLabel('Timeout (s)').fill('5');
    await dialog.getByLabel('Retries before down').fill('0');
    await dialog.getByLabel('Retry interval (s)').fill('20');
    await dialog.getByRole('button', { name: 'Create check' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row().waitFor();
    checkId = Number((await row().getByRole('link', { name: 'Shop front' }).getAttribute('href'))?.split('/').pop());
    assert.ok(checkId > 0);
    assert.equal(
      (await row().locator('td').nth(3).textContent())?.trim(),
      `http://127.0.0.1:${shop.port}/`,
      'the target in the row',
    );
  });

  it('follows the check UP, DOWN while its server is stopped, and UP again, without a reload', async () => {
    // a mark in the page: a reload would lose it
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await stateOfRow('UP').waitFor({ timeout: STATE_WAIT_MS });
    assert.match((await row().getByTestId('last-result').textContent()) ?? '', /^HTTP 200 · [\d.]+ ms · keyword as/);

    await shop.stop();
    await stateOfRow('DOWN').waitFor({ timeout: STATE_WAIT_MS });
    assert.match((await row().getByTestId('last-result').textContent()) ?? '', /connection refused/);
    // the minute's evaluation raises the check's alert (the check page's history shows it below)
    const run = await fetch(`${app.appUrl}/api/cron/evaluate-alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    assert.equal(run.status, 200);

    await shop.start();
    await stateOfRow('UP').waitFor({ timeout: STATE_WAIT_MS });
    assert.equal(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed), true);
  });

  /** Waits until `read` answers something other than `before`; returns it. */
  const changed = async (what: string, read: () => Promise<string | null>, before: string | null) => {
    const until = Date.now() + STATE_WAIT_MS;
    for (;;) {
      const now = await read();
      if (now !== before) return now;
      if (Date.now() > until) throw new Error(`${what} did not change from ${before}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  it('shows the newest result per location, the charts at every range and the alert history', async () => {
    await page.goto(`${app.url}/checks/${checkId}`);
    await page.getByRole('heading', { name: 'Shop front' }).waitFor();
    const argus = page.locator('tr[data-location="argus"]');
    assert.equal((await argus.locator('td').first().textContent())?.trim(), 'Argus');
    assert.equal((await argus.getByTestId('outcome').textContent())?.trim(), 'Up');
    const chart = page.locator('argus-family-chart[data-chart="Response time"] .uplot');
    await chart.waitFor();

    // the next run (within its 20 s interval) moves the chart and the newest result, without a reload
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const lastPoint = () =>
      page.locator('argus-family-chart[data-chart="Response time"] .metric-chart__at').textContent();
    const lastRun = () => argus.locator('time').getAttribute('datetime');
    const [pointBefore, runBefore] = [await lastPoint(), await lastRun()];
    assert.match(pointBefore ?? '', /^Values at /);
    const runAfter = await changed('the newest result of the server', lastRun, runBefore);
    await changed("the response time chart's newest point", lastPoint, pointBefore);
    assert.ok(Date.parse(runAfter ?? '') > Date.parse(runBefore ?? ''), 'a newer run');
    assert.equal(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed), true);

    for (const range of ['1 h', '7 d', '30 d', '400 d']) {
      await page.locator('mat-button-toggle', { hasText: range }).locator('button').click();
      await chart.waitFor();
    }
    const history = page.getByTestId('history-alert').first();
    await history.waitFor();
    assert.match((await history.textContent()) ?? '', /down/i);
  });

  it('lets a viewer of the customer read the check without a write button', async () => {
    const acme = ((await db.knex('customers').where({ name: 'Acme' }).first('id')) as { id: number }).id;
    const viewer = await createAccount(db.knex, { role: 'VIEWER', customerIds: [acme] });
    const viewerContext = await browser.newContext({ ignoreHTTPSErrors: true });
    const viewerPage = await viewerContext.newPage();
    viewerPage.setDefaultTimeout(15_000);
    try {
      await signIn(viewerPage, viewer);
      await viewerPage.goto(`${app.url}/checks`);
      await viewerPage.locator('tr[data-check="Shop front"]').waitFor();
      assert.equal(await viewerPage.getByRole('button', { name: 'New check' }).count(), 0);
      assert.equal(await viewerPage.getByRole('button', { name: 'Edit Shop front' }).count(), 0);
      assert.equal(await viewerPage.getByRole('button', { name: 'Delete Shop front' }).count(), 0);
      await viewerPage.goto(`${app.url}/checks/${checkId}`);
      await viewerPage.getByRole('heading', { name: 'Shop front' }).waitFor();
      assert.equal(await viewerPage.getByTestId('actions').count(), 0);
    } finally {
      await viewerContext.close();
    }
  });

  it('finds the check in the quick search and counts it on the Overview', async () => {
    await page.goto(`${app.url}/`);
    const line = page.getByTestId('customer-checks');
    await line.waitFor();
    assert.match((await line.textContent()) ?? '', /1 check/);
    await page.keyboard.press('Control+K');
    await page.getByRole('combobox', { name: 'Systems, checks, customers, containers and alerts' }).fill('shop fr');
    await page.getByRole('option', { name: /^Shop front Acme · HTTP\(S\) check/ }).click();
    await page.waitForURL(new RegExp(`/checks/${checkId}$`));
    await page.getByRole('heading', { name: 'Shop front' }).waitFor();
  });

  /** The page's width against the window's (runs in the browser: the test's tsconfig has no DOM types). */
  const sideways = () =>
    page.evaluate(() => {
      const { scrollingElement } = (
        globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
      ).document;
      return scrollingElement.scrollWidth > scrollingElement.clientWidth;
    });

  it('passes axe and fits 390 px on the Checks page, the check page and the dialog', async () => {
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const path of ['/checks', `/checks/${checkId}`]) {
        await page.goto(`${app.url}${path}`);
        await page.getByRole('heading', { name: path === '/checks' ? 'Checks' : 'Shop front' }).waitFor();
        await page.waitForLoadState('networkidle');
        const found = await violations(page);
        assert.deepEqual(found, [], `${path} at ${width} px: ${describeViolations(found)}`);
        assert.equal(await sideways(), false, `${path} scrolls sideways at ${width} px`);
      }
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByRole('dialog').getByLabel('URL').waitFor();
      const found = await violations(page);
      assert.deepEqual(found, [], `the dialog at ${width} px: ${describeViolations(found)}`);
      assert.equal(await sideways(), false, `the dialog scrolls sideways at ${width} px`);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
  });
});
