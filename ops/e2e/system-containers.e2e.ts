/**
 * End to end, a system's containers and processes as a person reads them: the built console behind
 * nginx, a system whose last half hour holds container and process series (seeded through the
 * `metric_samples` view, as the agent's reports would store them, and the images its agent listed).
 * The Containers tab lists each container's image, state, health, restarts, CPU and memory, a click
 * shows the container's own charts, the Processes tab shows the top lists, and the quick search
 * finds a container by name or image and leads to its tab. Axe and the 390 px width (with a long
 * image reference) are checked on the Containers tab.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { describeViolations, violations } from './axe.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole, type SeededConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-containers-webhook-secret-0123456';
const CRON_SECRET = 'e2e-containers-cron-secret-01234567890';
const ENROLLMENT_KEY = 'e2e-containers-enrollment-key-0123456';

/** The newest values of each container: web-shop unhealthy, db-main healthy, cron-job exited. */
const CONTAINERS: Record<string, Record<string, number>> = {
  'web-shop': { running: 1, healthy: 0, restarts: 3, cpu_pct: 95, mem_pct: 40 },
  'db-main': { running: 1, healthy: 1, restarts: 0, cpu_pct: 20, mem_pct: 70 },
  'cron-job': { running: 0, restarts: 1, cpu_pct: 0, mem_pct: 0 },
};
/** The images the agent listed: a long reference must wrap at 390 px; cron-job's is not known. */
const IMAGES = {
  'web-shop': 'registry.example.com:5000/shop/storefront-web:2026.11.28-build.1234',
  'db-main': 'postgres:16',
};
const PROCESSES: Record<string, { cpu_pct: number; rss_bytes: number }> = {
  'node (app)': { cpu_pct: 150, rss_bytes: 800 * 1024 ** 2 },
  'postgres (postgres)': { cpu_pct: 20, rss_bytes: 2.5 * 1024 ** 3 },
};

describe('e2e: the containers and processes of a system', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let seeded: SeededConsole;
  let browser: Browser;
  let page: Page;

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    seeded = await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-containers-host',
    });
    const rows = [
      ...Object.entries(CONTAINERS).flatMap(([instance, values]) =>
        Object.entries(values).map(([metric, value]) => ({ name: `container.${metric}`, instance, value })),
      ),
      ...Object.entries(PROCESSES).flatMap(([instance, values]) =>
        Object.entries(values).map(([metric, value]) => ({ name: `process.${metric}`, instance, value })),
      ),
      { name: 'processes.count', instance: 'nginx', value: 4 },
    ];
    // half an hour of reports, one a minute, and the newest values the quick search reads
    await db.knex.raw(
      `INSERT INTO metric_samples (time, system_id, name, instance, value)
       SELECT t, ?, r.name, r.instance, r.value
         FROM generate_series(now() - interval '30 minutes', now() - interval '1 minute', interval '1 minute') AS t,
              jsonb_to_recordset(?::jsonb) AS r(name text, instance text, value float8)`,
      [seeded.systemId, JSON.stringify(rows)],
    );
    await db
      .knex('metric_latest')
      .insert(rows.map((r) => ({ system_id: seeded.systemId, ...r, time: new Date(Date.now() - 60_000) })));
    await db.knex('container_images').insert(
      Object.entries(IMAGES).map(([name, image]) => ({
        system_id: seeded.systemId,
        name,
        image,
        reported_at: new Date(Date.now() - 60_000),
      })),
    );
    browser = await launchChromium();
    // bypassCSP: axe is injected as a script, which the console's CSP refuses
    page = await (await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    const admin = await createAccount(db.knex, { role: 'ADMIN', username: 'containers-admin' });
    await page.goto(`${app.url}/login`);
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Argus services: all operational').waitFor();
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  /** The cells' texts of each row (runs in the browser: the test's tsconfig has no DOM types). */
  type Cells = { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };
  const rowTexts = (selector: string) =>
    page
      .locator(selector)
      .evaluateAll((rows) =>
        (rows as unknown as Cells[]).map((row) =>
          Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent?.replace(/\s+/g, ' ').trim()),
        ),
      );

  it("lists the containers in their tab, and opens a container's charts", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${app.url}/systems/${seeded.systemId}`);
    await page.getByRole('tab', { name: 'Processes' }).waitFor();
    assert.deepEqual(await page.getByRole('tab').allTextContents(), ['Host', 'Containers', 'Processes']);
    await page.getByRole('tab', { name: 'Containers' }).click();
    await page.locator('argus-system-containers tbody tr').first().waitFor();

    assert.deepEqual(await rowTexts('argus-system-containers tbody tr'), [
      ['cron-job', 'Exited', 'No check', '1', '0 %', '0 %'],
      [`db-main ${IMAGES['db-main']}`, 'Running', 'Healthy', '0', '20 %', '70 %'],
      [`web-shop ${IMAGES['web-shop']}`, 'Unhealthy', 'Unhealthy', '3', '95 %', '40 %'],
    ]);
    await page.getByRole('button', { name: 'Charts of web-shop' }).click();
    const charts = page.getByTestId('container-charts');
    await charts.getByRole('heading', { name: 'web-shop' }).waitFor();
    await charts.locator('argus-family-chart[data-chart="Container CPU"] .uplot').waitFor();
    for (const range of ['7 d', '400 d']) {
      await charts.locator('mat-button-toggle', { hasText: range }).locator('button').click();
      await charts.locator('argus-family-chart[data-chart="Container CPU"] .uplot').waitFor();
    }
  });

  it('shows the top processes of the last report', async () => {
    await page.getByRole('tab', { name: 'Processes' }).click();
    await page.locator('[data-list="cpu"] tbody tr').first().waitFor();
    assert.deepEqual(await rowTexts('[data-list="cpu"] tbody tr'), [
      ['node (app)', '150 %', '800 MiB'],
      ['postgres (postgres)', '20 %', '2.5 GiB'],
    ]);
    await page.getByTestId('watched-charts').locator('argus-family-chart .uplot').first().waitFor();
  });

  it("finds a container in the quick search by name or image and leads to its system's Containers tab", async () => {
    await page.goto(`${app.url}/alerts`);
    await page.getByRole('heading', { name: 'Incidents' }).waitFor();
    await page.keyboard.press('Control+K');
    const search = page.getByRole('combobox', { name: 'Systems, checks, customers, containers and alerts' });
    await search.fill('storefront');
    await page.getByRole('option', { name: /web-shop.*storefront-web/ }).waitFor();
    await search.fill('web-sh');
    await page.getByRole('option', { name: /web-shop/ }).click();
    await page.waitForURL(/\/systems\/\d+\?tab=containers&container=web-shop$/);
    assert.equal(
      (await page.getByRole('tab', { selected: true }).textContent())?.trim(),
      'Containers',
      'the Containers tab is open',
    );
    await page.getByTestId('container-charts').getByRole('heading', { name: 'web-shop' }).waitFor();
  });

  it('passes axe and fits 390 px on the Containers tab', async () => {
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app.url}/systems/${seeded.systemId}?tab=containers`);
      await page.locator('argus-system-containers tbody tr').first().waitFor();
      await page.waitForLoadState('networkidle');
      const found = await violations(page);
      assert.deepEqual(found, [], describeViolations(found));
      const sideways = await page.evaluate(() => {
        const { scrollingElement } = (
          globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
        ).document;
        return { scrollWidth: scrollingElement.scrollWidth, clientWidth: scrollingElement.clientWidth };
      });
      assert.ok(sideways.scrollWidth <= sideways.clientWidth, `${width} px scrolls sideways`);
      const table = await page
        .locator('argus-system-containers .scroll')
        .evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
      assert.ok(table.scrollWidth <= table.clientWidth, `the table scrolls at ${width} px`);
    }
  });
});
