/**
 * End to end, the monitoring loop as an operator watches it: a simulated agent
 * enrolls and reports, the scheduler's call evaluates, and the open console
 * shows the new system, its CRITICAL status and the open-alert counter without
 * a reload (the live channel), then the alert on the alerts page, and the system's own page
 * following it back to ONLINE.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount, createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { SimulatedAgent } from '../agent-sim/agent.js';

const WEBHOOK_SECRET = 'e2e-webhook-secret-0123456789abcdef0123';
const CRON_SECRET = 'e2e-cron-secret-0123456789abcdef';
const ENROLLMENT_KEY = 'e2e-enrollment-key-0123456789abcdef';

describe('alerting in a browser', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  let agent: SimulatedAgent;

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    // what start-up step 2 does: the 44 default rules and the event rule
    await ensureDefaultRules(db.knex);
    const customerId = await createCustomer(db.knex, 'Acme');
    await db.knex('clusters').insert({ customer_id: customerId, name: 'web', enrollment_key: ENROLLMENT_KEY });
    const admin = await createAccount(db.knex, { role: 'ADMIN', username: 'grace' });
    browser = await launchChromium();
    // nginx's certificate is self-signed
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${app.url}/login`);
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Argus services: all operational').waitFor();
    agent = new SimulatedAgent({
      url: `${app.appUrl}/api/webhook/metrics`,
      secret: WEBHOOK_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-host-1',
      hostname: 'web-01',
      seed: 7,
    });
  });
  after(async () => {
    await browser?.close();
    await app.stop();
    await db.drop();
  });

  it('shows a newly enrolled system on the open systems page without a reload', async () => {
    await page.goto(`${app.url}/systems`);
    await page.getByRole('heading', { name: 'Systems' }).first().waitFor();
    const report = agent.collect();
    // the root filesystem went read-only: disk.readonly == 1 raises CRITICAL at once (for 0)
    const readonly = report.metrics.find((m) => m.name === 'disk.readonly' && m.instance === '/');
    assert.ok(readonly, 'the simulator reports disk.readonly for /');
    readonly.value = 1;
    const sent = await agent.send();
    assert.equal(sent?.status, 200);
    await page.getByText('web-01').first().waitFor();
  });

  it('turns the system CRITICAL and counts the alert live after the scheduler calls the evaluation', async () => {
    const counter = page.getByTestId('open-alerts');
    const run = await fetch(`${app.appUrl}/api/cron/evaluate-alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    assert.equal(run.status, 200);
    const body = (await run.json()) as { alerts: { triggered: number } };
    assert.equal(body.alerts.triggered, 1);
    await page.locator('[data-status="CRITICAL"]').first().waitFor();
    await counter.locator('.open-alerts-count', { hasText: /^\s*1\s*$/ }).waitFor();
    assert.match((await counter.getAttribute('aria-label')) ?? '', /1 critical/);
  });

  it('lists the open alert on the alerts page', async () => {
    await page.getByTestId('open-alerts').click();
    await page.waitForURL(/\/alerts/);
    await page.getByText('disk.readonly').first().waitFor();
  });

  it("follows the system's own page live: the alert resolved turns it ONLINE without a reload", async () => {
    await page.goto(`${app.url}/systems`);
    await page.getByRole('link', { name: 'web-01' }).first().click();
    await page.waitForURL(/\/systems\/\d+/);
    const status = page.locator('main [data-status]').first();
    await page.locator('main [data-status="CRITICAL"]').first().waitFor();
    const report = agent.collect();
    const readonly = report.metrics.find((m) => m.name === 'disk.readonly' && m.instance === '/');
    assert.ok(readonly);
    readonly.value = 0;
    assert.equal((await agent.send())?.status, 200);
    const run = await fetch(`${app.appUrl}/api/cron/evaluate-alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    assert.equal(run.status, 200);
    const body = (await run.json()) as { alerts: { resolved: number } };
    assert.equal(body.alerts.resolved, 1);
    await page.locator('main [data-status="ONLINE"]').first().waitFor();
    assert.equal(await status.getAttribute('data-status'), 'ONLINE');
  });
});
