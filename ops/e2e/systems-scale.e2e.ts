/**
 * End to end, the systems page on a fleet larger than one page: the page loads
 * further pages as the user scrolls the console's content (not the window: the shell scrolls inside
 * its sidenav content, which the virtual scroll must follow), filters on the server, and shows a
 * status change of a row it holds from the live `changes` message. Built console, real server,
 * PostgreSQL and Redis, Debian Chromium.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount, createCustomer } from '../../backend/src/testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../../backend/src/testing/app.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { REPO_ROOT } from '../../backend/src/testing/script.js';
import { launchChromium } from './browser.js';

const FLEET = 600;

describe('the systems page on a fleet larger than one page', () => {
  let db: TestDatabase;
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(
      testConfig(db.url, { STATIC_DIR: path.join(REPO_ROOT, 'dist/frontend/browser'), LOG_LEVEL: 'warn' }),
    );
    const customerId = await createCustomer(db.knex, 'Big');
    await db.knex('systems').insert(
      Array.from({ length: FLEET }, (_, i) => ({
        customer_id: customerId,
        name: `host-${String(i).padStart(4, '0')}`,
        hostname: `h${i}.example`,
        status: i % 6 === 0 ? 'WARNING' : 'ONLINE',
        last_seen_at: new Date(),
      })),
    );
    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/login`);
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await db?.drop();
  });

  const more = () => page.getByTestId('more');
  const statusOf = (name: string) =>
    page.locator('[data-testid="system"]', { hasText: name }).locator('[data-status]').getAttribute('data-status');

  it('loads the next pages while the user scrolls down to the last system', async () => {
    await page.goto(`${server.url}/systems`);
    await page.getByText('host-0000', { exact: true }).waitFor();
    assert.match((await more().textContent()) ?? '', new RegExp(`Showing 250 of ${FLEET} systems; more load`));
    assert.match((await page.locator('[data-testid="customer"] h2').textContent()) ?? '', /600 systems/);
    await page.mouse.move(700, 600);
    const lastName = `host-${String(FLEET - 1).padStart(4, '0')}`;
    for (let turn = 0; turn < 20 && !(await page.getByText(lastName, { exact: true }).isVisible()); turn += 1) {
      await page.mouse.wheel(0, 8000);
      await page.waitForTimeout(300);
    }
    await page.getByText(lastName, { exact: true }).waitFor();
    assert.equal((await more().textContent())?.trim(), `Showing ${FLEET} of ${FLEET} systems.`);
  });

  it('filters on the server and shows a status change of a row it holds', async () => {
    await page.goto(`${server.url}/systems`);
    await page.getByLabel('Filter by name, hostname or customer').fill('host-055');
    await page.getByText('host-0559', { exact: true }).waitFor();
    assert.equal(await page.locator('[data-testid="system"]').count(), 10);
    assert.equal(await statusOf('host-0551'), 'ONLINE');

    const { id } = await db.knex('systems').where({ name: 'host-0551' }).first<{ id: number }>('id');
    await db.knex('systems').where({ id }).update({ status: 'CRITICAL' });
    const changedAt = Date.now();
    await server.bus.publish('systems', { id }); // as ingest announces a status change
    for (let turn = 0; turn < 40 && (await statusOf('host-0551')) !== 'CRITICAL'; turn += 1)
      await page.waitForTimeout(100);
    assert.equal(await statusOf('host-0551'), 'CRITICAL');
    process.stdout.write(`e2e: status change shown after ${Date.now() - changedAt} ms\n`);
  });
});
