/**
 * End to end, as a person does it: the built console on the real server in production mode behind
 * the nginx example with TLS (real PostgreSQL and Redis), driven in Debian Chromium through
 * playwright-core.
 * Run by `npm test` after `ng build`; never downloads a browser.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { createAdministrator, launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';

const PASSWORD = 'a long and happy passphrase';

describe('the console in a browser', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url);
    browser = await launchChromium();
    // nginx's certificate is self-signed
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await app.stop();
    await db.drop();
  });

  it('sends a first visitor from /login to /setup, creates the administrator and signs them in', async () => {
    await page.goto(`${app.url}/login`);
    await page.waitForURL(/\/setup$/);
    await createAdministrator(page, {
      name: 'Ada Admin',
      email: 'ada@example.com',
      username: 'ada',
      password: PASSWORD,
    });
    await page.getByText('Argus services: all operational').waitFor();
    assert.equal((await db.knex('users').first('role'))?.role, 'ADMIN');
    // the sign-in the next steps test is the sign-in form's: this browser starts afresh
    await page.context().clearCookies();
  });

  it('keeps /setup closed once an account exists', async () => {
    await page.goto(`${app.url}/setup`);
    await page.waitForURL(/\/login/);
  });

  it('signs in by username and shows the overview with its live health line', async () => {
    await page.getByLabel('E-mail or username').fill('ADA');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText('Argus services: all operational').waitFor();
    // production behind TLS: every cookie Secure, HttpOnly, SameSite=Lax
    const cookies = await page.context().cookies(app.url);
    assert.ok(cookies.length > 0);
    for (const cookie of cookies) {
      assert.deepEqual([cookie.secure, cookie.httpOnly, cookie.sameSite], [true, true, 'Lax'], cookie.name);
    }
  });

  it('creates an API token that is shown once and works as a bearer token', async () => {
    await page.goto(`${app.url}/account`);
    await page.getByRole('tab', { name: 'API tokens' }).click();
    await page.getByRole('button', { name: 'Create token' }).first().click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('e2e script');
    await page.getByRole('dialog').getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('token-value').textContent())?.trim() ?? '';
    assert.match(token, /^argus_[0-9A-Za-z]{43}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'e2e script', exact: true }).first().waitFor();

    const me = await fetch(`${app.appUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(me.status, 200);
  });

  it('signs out, and a deep link then asks for sign-in first', async () => {
    await page.getByRole('button', { name: /Account menu of/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${app.url}/account`);
    await page.waitForURL(/\/login\?returnUrl=%2Faccount/);
  });
});
