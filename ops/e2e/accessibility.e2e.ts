/**
 * End to end, the cheap accessibility guard: axe-core (WCAG 2.1 A and AA rules) over every page of the
 * built console, signed out and signed in as an administrator, with data on each page (a customer
 * and cluster, a reporting system with an open alert, a maintenance window, a second account). A
 * violation fails with axe's rule, its impact and the elements it found.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { startWebhookReceiver } from '../../backend/src/testing/webhook-receiver.js';
import { describeViolations, violations } from './axe.js';
import { launchChromium } from './browser.js';
import { pastTheRightEdge } from './overflow.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-axe-webhook-secret-0123456789abcdef';
const CRON_SECRET = 'e2e-axe-cron-secret-0123456789abcdef';
const ENROLLMENT_KEY = 'e2e-axe-enrollment-key-0123456789abc';

describe('accessibility of every console page (axe-core, WCAG 2.1 AA)', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  let systemId = 0;
  let alertId = 0;
  let statusPath = '';

  async function check(url: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
    await page.goto(`${app.url}${url}`);
    await ready(page);
    // let animations and live data settle before judging contrast and names
    await page.waitForLoadState('networkidle');
    const found = await violations(page);
    assert.deepEqual(found, [], `${url}:\n${describeViolations(found)}`);
    // and in the dark scheme (the system's, or the toolbar's choice): every colour is light-dark()
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      const dark = await violations(page);
      assert.deepEqual(dark, [], `${url}, dark scheme:\n${describeViolations(dark)}`);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }

  before(async () => {
    db = await createTestDatabase();
    // channel receivers on 127.0.0.1 (the Send test below)
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET, ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
    browser = await launchChromium();
    // the console's Content-Security-Policy forbids inline scripts: axe is injected as one
    page = await (await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);

    ({ systemId, alertId, statusPath } = await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-axe-host',
    }));
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  it('the setup page (first visit)', () =>
    check('/setup', (p) =>
      p
        .getByRole('button', { name: /create/i })
        .first()
        .waitFor(),
    ));

  it('sign-in, forgotten password and reset pages', async () => {
    const admin = await createAccount(db.knex, { role: 'ADMIN', username: 'axe-admin' });
    await createAccount(db.knex, { role: 'VIEWER', username: 'viewer' });
    await check('/forgot-password', (p) => p.getByRole('heading').first().waitFor());
    await check('/reset-password?token=not-a-real-token', (p) => p.getByRole('heading').first().waitFor());
    await check('/login', (p) => p.getByRole('button', { name: 'Sign in' }).waitFor());
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Argus services: all operational').waitFor();
  });

  const signedIn: [string, string | (() => string), (p: Page) => Promise<unknown>][] = [
    ['the status page', '/status', (p) => p.getByText('Argus services: all operational').waitFor()],
    ['the systems page', '/systems', (p) => p.getByText('web-01').first().waitFor()],
    [
      'a system page',
      () => `/systems/${systemId}`,
      (p) => p.getByRole('heading', { name: 'web-01' }).first().waitFor(),
    ],
    ['the alerts page', '/alerts', (p) => p.getByRole('heading', { name: 'Incidents' }).waitFor()],
    ['an alert page', () => `/alerts/${alertId}`, (p) => p.getByText(/Part of incident: Site down: web/).waitFor()],
    ['the rules page', '/rules', (p) => p.getByText('cpu.high').first().waitFor()],
    ['the maintenance page', '/maintenance', (p) => p.getByText('Sunday patching').first().waitFor()],
    ['the customers page', '/customers', (p) => p.getByText('Acme').first().waitFor()],
    // the table with its timeline bars, the downloads and the monthly e-mail form (an admin writes)
    [
      'the availability report page',
      '/reports/availability',
      (p) =>
        p
          .getByTestId('monthly-recipients')
          .waitFor()
          .then(() => p.getByTestId('system-row').first().waitFor()),
    ],
    ['the users page', '/users', (p) => p.getByText('viewer').first().waitFor()],
    ['the account page', '/account', (p) => p.getByRole('heading').first().waitFor()],
    ['the mail settings', '/settings/mail', (p) => p.getByRole('heading').first().waitFor()],
    ['the agent rollout settings', '/settings/agent-rollout', (p) => p.getByRole('heading').first().waitFor()],
    ['the alert settings', '/settings/alerts', (p) => p.getByRole('heading').first().waitFor()],
    ['the forecast settings', '/settings/forecasts', (p) => p.getByLabel('Trend window (hours)').waitFor()],
    ['the storage page', '/settings/storage', (p) => p.getByTestId('usage').waitFor()],
    [
      'the notification channels',
      '/settings/channels',
      (p) => p.getByText('Accounts who may see it').first().waitFor(),
    ],
    [
      'the notification routing',
      '/settings/routing',
      (p) => p.getByRole('heading', { name: 'Global policy' }).waitFor(),
    ],
    ['the status pages settings', '/settings/status-pages', (p) => p.getByTestId('status-page').first().waitFor()],
    // the public page is the server's HTML, not the console's; judged the same way
    ['a published status page', () => statusPath, (p) => p.getByRole('heading', { name: 'Web shop' }).waitFor()],
    ['the not-found page', '/no-such-page', (p) => p.getByRole('heading').first().waitFor()],
  ];
  for (const [name, url, ready] of signedIn) {
    it(name, () => check(typeof url === 'string' ? url : url(), ready));
  }

  for (const width of [390, 1440])
    it(`the overview (the home page) at ${width} px, light and dark, its content within the width`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await check('/', async (p) => {
        await p.getByRole('link', { name: 'Site down: web' }).waitFor();
        // a card's statuses and offenders are drawn as it nears the screen: judge them too
        const last = p.getByTestId('customer').last();
        await last.scrollIntoViewIfNeeded();
        await last.getByTestId('customer-details').waitFor();
        assert.deepEqual(await pastTheRightEdge(p, 'argus-overview-page'), [], `${width} px`);
      }).finally(() => page.setViewportSize({ width: 1280, height: 720 }));
    });

  it('the quick search: Ctrl+K, a few letters, Enter goes to the system', async () => {
    await page.goto(`${app.url}/alerts`);
    await page.getByRole('heading', { name: 'Incidents' }).waitFor();
    await page.keyboard.press('Control+K');
    const field = page.getByRole('combobox', { name: 'Systems, customers, containers and alerts' });
    await field.fill('web-0');
    await page.getByRole('option', { name: /^web-01 Acme/ }).waitFor();
    await page.getByTestId('search-status').getByText(/match/).waitFor();
    const found = await violations(page);
    assert.deepEqual(found, [], `quick search with results:\n${describeViolations(found)}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/systems/${systemId}$`));
    await page.getByRole('heading', { name: 'web-01' }).first().waitFor();
  });

  it("the toolbar's theme choice: dark over a light system setting, kept after a reload, and back", async () => {
    const background = () =>
      page.evaluate(() => {
        // runs in the browser (the test's tsconfig has no DOM types)
        const window = globalThis as unknown as {
          document: { body: unknown };
          getComputedStyle(element: unknown): { backgroundColor: string };
        };
        return window.getComputedStyle(window.document.body).backgroundColor;
      });
    const luminance = (rgb: string) => {
      const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    // the choice applies at the console's next change detection: give it a moment
    const shows = async (dark: boolean, what: string) => {
      for (let tries = 0; tries < 50 && luminance(await background()) < 128 !== dark; tries++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(luminance(await background()) < 128, dark, what);
    };
    await page.goto(`${app.url}/systems`);
    await page.getByText('web-01').first().waitFor();
    await shows(false, 'light to start with');

    await page.getByRole('button', { name: 'Theme: As the system' }).click();
    await page.getByRole('menuitemradio', { name: 'Dark' }).click();
    await shows(true, 'dark once chosen');
    const found = await violations(page);
    assert.deepEqual(found, [], `systems page, dark chosen:\n${describeViolations(found)}`);

    await page.reload();
    await page.getByText('web-01').first().waitFor();
    await shows(true, 'still dark after a reload');
    await page.getByRole('button', { name: 'Theme: Dark' }).click();
    await page.getByRole('menuitemradio', { name: 'As the system' }).click();
    await shows(false, 'light again with the system');
  });

  it('the channel dialog, and a new webhook channel that answers "Send test"', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await check('/settings/channels', (p) => p.getByText('Accounts who may see it').first().waitFor());
      await page.getByRole('button', { name: 'New channel' }).click();
      await page.getByRole('dialog').getByLabel('Name').waitFor();
      await page.waitForLoadState('networkidle');
      const found = await violations(page);
      assert.deepEqual(found, [], `channel dialog:\n${describeViolations(found)}`);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Ops webhook');
      await dialog.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: /^Webhook/ }).click();
      await dialog.getByRole('textbox', { name: /URL/i }).fill(`${receiver.url}/hook`);
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('button', { name: 'Send test to Ops webhook' }).click();
      await page
        .getByTestId('test-result')
        .getByText(/delivered/i)
        .waitFor();
      assert.equal(receiver.received.at(-1)?.json['event'], 'test');
    } finally {
      await receiver.close();
    }
  });

  it('a customer policy saved through the routing page, repeating every 15 minutes', async () => {
    await check('/settings/routing', (p) => p.getByRole('heading', { name: 'Global policy' }).waitFor());
    const customer = page.getByRole('region', { name: 'Customer policy' });
    await customer.getByRole('combobox', { name: 'Customer' }).click();
    await page.getByRole('option', { name: /^Acme/ }).click();
    await customer.getByTestId('policy-kind').getByText('Acme follows the global policy.').waitFor();
    await page.waitForLoadState('networkidle');
    const found = await violations(page);
    assert.deepEqual(found, [], `routing page with a customer's editor:\n${describeViolations(found)}`);
    await customer.getByLabel('Repeat every (minutes)').fill('15');
    await customer.getByRole('button', { name: 'Save policy' }).click();
    await customer.getByTestId('policy-kind').getByText('Acme has its own policy.').waitFor();
    const saved = await db.knex('notification_policies').whereNotNull('customer_id').first();
    assert.equal(saved?.repeat_minutes, 15);
  });

  it('the audit log, showing the channel and policy changes made above, filtered and unfiltered', async () => {
    await check('/settings/audit-log', (p) => p.getByText('policy.save').first().waitFor());
    await page.getByLabel('Action').fill('channel');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('channel.create').first().waitFor();
    await page.waitForLoadState('networkidle');
    const found = await violations(page);
    assert.deepEqual(found, [], `audit log filtered:\n${describeViolations(found)}`);
    const shown = await page.getByTestId('action').allTextContents();
    assert.ok(shown.length > 0 && shown.every((action) => action.trim().startsWith('channel.')), shown.join(', '));
  });

  it('the API page: the OpenAPI document rendered by swagger-ui, collapsed and with operations expanded', async () => {
    const reference = page.getByTestId('reference');
    await check('/reference/api', () => reference.locator('.opblock').first().waitFor());
    // a read, and a write with a request body and its schema
    await reference.locator('.opblock-get .opblock-summary-control').first().click();
    await reference.locator('.opblock-get .responses-wrapper').first().waitFor();
    await reference.locator('.opblock-post .opblock-summary-control').first().click();
    await reference.locator('.opblock-post .opblock-section-request-body').first().waitFor();
    await page.waitForLoadState('networkidle');
    const found = await violations(page);
    assert.deepEqual(found, [], `API page with operations expanded:\n${describeViolations(found)}`);
    // swagger-ui has no dark colours: in the console's dark scheme it must stay readable
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      const dark = await violations(page);
      assert.deepEqual(dark, [], `API page, dark scheme:\n${describeViolations(dark)}`);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('the API page under the real Content-Security-Policy: its renderer loads from the server, nothing else', async () => {
    // the pages above run with the policy bypassed (axe is injected inline); this one keeps it
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      storageState: await page.context().storageState(),
    });
    try {
      const strict = await context.newPage();
      const refused: string[] = [];
      const elsewhere: string[] = [];
      strict.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
      });
      strict.on('request', (request) => {
        const url = new URL(request.url());
        // data: images are inline, not fetched from anywhere
        if (url.protocol !== 'data:' && url.origin !== new URL(app.url).origin) elsewhere.push(request.url());
      });
      await strict.goto(`${app.url}/reference/api`);
      await strict.getByTestId('reference').locator('.opblock').first().waitFor({ timeout: 15_000 });
      await strict.waitForLoadState('networkidle');
      assert.deepEqual(refused, []);
      assert.deepEqual(elsewhere, []);
      const asset = await strict.request.get(`${app.url}/vendor/swagger-ui/swagger-ui-bundle.js`);
      assert.equal(asset.status(), 200);
      assert.match(asset.headers()['content-type'] ?? '', /javascript/);
    } finally {
      await context.close();
    }
  });

  it('and the guard itself finds a violation when there is one (an image without a text alternative)', async () => {
    await page.goto(`${app.url}/no-such-page`);
    await page.getByRole('heading').first().waitFor();
    await page.evaluate(() => {
      const dom = globalThis as unknown as {
        document: { body: { insertAdjacentHTML(where: string, html: string): void } };
      };
      dom.document.body.insertAdjacentHTML('beforeend', '<img src="/favicon.ico">');
    });
    assert.deepEqual(
      (await violations(page)).map((v) => v.id),
      ['image-alt'],
    );
  });
});
