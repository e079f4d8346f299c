/**
 * End to end, a customer status page: an operator publishes one in the console
 * (Settings → Status pages), and the address it shows opens in a fresh browser context, like a
 * private window: no sign-in, no cookie, no script of the console, only the public names, and axe
 * finds nothing in the light or dark scheme. Then the address is rotated and the old one is gone.
 * Through the nginx example in front of the production server, as deployed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { describeViolations, violations } from './axe.js';
import { launchChromium } from './browser.js';
import { pastTheRightEdge } from './overflow.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-status-webhook-secret-0123456789ab';
const CRON_SECRET = 'e2e-status-cron-secret-0123456789abcd';
const ENROLLMENT_KEY = 'e2e-status-enrollment-key-0123456789';

describe('a status page published in the console opens in a private window', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let consolePage: Page;
  let address = '';

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-status-host',
    });
    browser = await launchChromium();
    consolePage = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    consolePage.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  it('an operator publishes a page of the cluster under a public name', async () => {
    const customerId = ((await db.knex('customers').where({ name: 'Acme' }).first('id')) as { id: number }).id;
    const operator = await createAccount(db.knex, { role: 'OPERATOR', customerIds: [customerId] });
    await consolePage.goto(`${app.url}/login`);
    await consolePage.getByLabel('E-mail or username').fill(operator.email);
    await consolePage.getByLabel('Password', { exact: true }).fill(operator.password);
    await consolePage.getByRole('button', { name: 'Sign in' }).click();
    await consolePage.getByText('Argus services: all operational').waitFor();

    await consolePage.getByRole('link', { name: 'Status pages' }).click();
    await consolePage.getByRole('heading', { name: 'Status pages' }).waitFor();
    await consolePage.getByRole('button', { name: 'New status page' }).click();
    await consolePage.getByRole('combobox', { name: 'Customer' }).click();
    await consolePage.getByRole('option', { name: 'Acme' }).click();
    await consolePage.getByLabel('Title').fill('Acme shop status');
    // by keyboard: a click right after the customer's list closed lands on its fading backdrop
    await consolePage.getByRole('combobox', { name: 'System, check or cluster 1' }).focus();
    await consolePage.keyboard.press('Enter');
    await consolePage.getByRole('option', { name: 'web', exact: true }).click();
    await consolePage.getByLabel('Public name 1').fill('Online shop');
    await consolePage.getByLabel('Announcement (optional)').fill('New checkout goes live on Monday.');
    await consolePage.getByRole('button', { name: 'Publish' }).click();
    await consolePage.getByText('Status page published').waitFor();

    const card = consolePage.getByTestId('status-page').filter({ hasText: 'Acme shop status' });
    address = (await card.getByTestId('status-url').getAttribute('href')) ?? '';
    assert.match(address, new RegExp(`^${app.url}/status/[A-Za-z0-9_-]{24}$`));
  });

  it('opens in a fresh context: no cookie, no console script, only public names, accessible light and dark', async () => {
    // bypassCSP only so axe can be injected; the context has no cookies, like a private window
    const context = await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true });
    try {
      const page = await context.newPage();
      const scripts: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.push(request.url());
      });
      const response = await page.goto(address);
      assert.equal(response?.status(), 200);
      const headers = await response!.allHeaders();
      assert.equal(headers['set-cookie'], undefined, 'no cookie');
      assert.equal(headers['x-robots-tag'], 'noindex, nofollow');
      assert.equal(headers['cache-control'], 'public, max-age=30');
      assert.deepEqual(await context.cookies(), []);
      assert.deepEqual(scripts, [], "the console's bundle is not loaded");

      await page.getByRole('heading', { level: 1, name: 'Acme shop status' }).waitFor();
      await page.getByRole('heading', { name: 'Online shop' }).waitFor();
      await page.getByText('New checkout goes live on Monday.').waitFor();
      const text = await page.locator('body').innerText();
      for (const hidden of ['web-01', 'e2e-status-host', 'Site down']) assert.ok(!text.includes(hidden), hidden);

      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [390, 1440]) {
          await page.setViewportSize({ width, height: 900 });
          const found = await violations(page);
          assert.deepEqual(found, [], `${scheme}, ${width} px:\n${describeViolations(found)}`);
          assert.deepEqual(await pastTheRightEdge(page, 'main'), [], `${scheme}, ${width} px`);
        }
      }
    } finally {
      await context.close();
    }
  });

  it('a new address from the console: the old one answers 404 in a private window', async () => {
    const card = consolePage.getByTestId('status-page').filter({ hasText: 'Acme shop status' });
    await card.getByRole('button', { name: 'New address' }).click();
    await consolePage.locator('argus-confirm-dialog').getByRole('button', { name: 'New address' }).click();
    await consolePage.getByText('New address made').waitFor();
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const old = await page.goto(address);
      assert.equal(old?.status(), 404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      const fresh = (await card.getByTestId('status-url').getAttribute('href')) ?? '';
      assert.notEqual(fresh, address);
      assert.equal((await page.goto(fresh))?.status(), 200);
    } finally {
      await context.close();
    }
  });
});
