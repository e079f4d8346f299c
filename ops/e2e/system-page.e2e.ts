/**
 * End to end, a system's page as a person reads it: the built console behind nginx, a system with a
 * day of samples for every series its agent reports. Series carry the catalogue's labels and units,
 * charts hold one kind and unit (the flags a status strip), charts without data are named in one line,
 * and the page loads its charts in two requests (the first screen's charts, then the rest), again one
 * per range picked. Screenshots at 1440 and 390 px are saved to a temporary folder named in the output,
 * for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { describeViolations, violations } from './axe.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';
import { seedConsole, type SeededConsole } from './seeded-console.js';

const WEBHOOK_SECRET = 'e2e-system-page-webhook-secret-012345';
const CRON_SECRET = 'e2e-system-page-cron-secret-0123456789';
const ENROLLMENT_KEY = 'e2e-system-page-enrollment-key-012345';

describe('e2e: a system page a person can read', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let seeded: SeededConsole;
  let browser: Browser;
  let page: Page;
  let shots: string;
  /** The API requests the page sent since the last `apiRequests.length = 0`. */
  const apiRequests: string[] = [];

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    seeded = await seedConsole(db.knex, app, {
      webhook: WEBHOOK_SECRET,
      cron: CRON_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-system-page-host',
    });
    // a day of reports, one a minute, with every series the agent reported (one row per report: the
    // agent's series set and its values); the temperatures stopped 12 hours ago (shown over 24 h,
    // "no data" over the last hour), so the last 12 hours use the set without them
    const sets = `
      WITH latest AS (
        SELECT s.names, s.instances, m.vals FROM metrics m JOIN metric_series_sets s ON s.id = m.set_id
         WHERE m.system_id = ? ORDER BY m.time DESC LIMIT 1),
      series AS (
        SELECT u.* FROM latest, unnest(latest.names, latest.instances, latest.vals) WITH ORDINALITY
          AS u(name, instance, value, k))`;
    await db.knex.raw(
      `${sets}
       INSERT INTO metrics (time, system_id, set_id, vals)
       SELECT t, ?,
              metric_series_set_id(
                ARRAY(SELECT name FROM series WHERE name <> 'temp.max_c' OR t < now() - interval '12 hours' ORDER BY k),
                ARRAY(SELECT instance FROM series WHERE name <> 'temp.max_c' OR t < now() - interval '12 hours' ORDER BY k)),
              ARRAY(SELECT (CASE WHEN name LIKE '%\\_pct' THEN value + 5 * sin(extract(epoch FROM t) / 3600) ELSE value END)::real
                      FROM series WHERE name <> 'temp.max_c' OR t < now() - interval '12 hours' ORDER BY k)
         FROM generate_series(now() - interval '24 hours', now() - interval '2 minutes', interval '1 minute') AS t`,
      [seeded.systemId, seeded.systemId],
    );
    // the agent's own report (the last 2 minutes) loses its temperatures too
    const kept = `FROM unnest(s.names, s.instances, m.vals) WITH ORDINALITY AS u(name, instance, value, k)
                  WHERE name <> 'temp.max_c' ORDER BY k`;
    await db.knex.raw(
      `UPDATE metrics m
          SET set_id = metric_series_set_id(ARRAY(SELECT name ${kept}), ARRAY(SELECT instance ${kept})),
              vals = ARRAY(SELECT value ${kept})
         FROM metric_series_sets s
        WHERE s.id = m.set_id AND m.system_id = ? AND m.time > now() - interval '2 minutes'`,
      [seeded.systemId],
    );
    shots = await mkdtemp(path.join(os.tmpdir(), 'argus-system-page-'));
    console.log(`# screenshots in ${shots}`);
    browser = await launchChromium();
    // bypassCSP: axe is injected as a script, which the console's CSP refuses
    page = await (await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    page.on('request', (request: Request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) apiRequests.push(`${request.method()} ${url.pathname}`);
    });
    page.on('requestfinished', (request: Request) => {
      const { pathname } = new URL(request.url());
      const timing = request.timing();
      if (pathname.startsWith('/api/systems/')) console.log(`# ${pathname}: ${Math.round(timing.responseEnd)} ms`);
    });
    const admin = await createAccount(db.knex, { role: 'ADMIN', username: 'system-page-admin' });
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

  const chart = (title: string) => page.locator(`argus-family-chart[data-chart="${title}"]`);
  const legend = (title: string) => chart(title).locator('.metric-chart__label').allTextContents();

  it("loads in a handful of requests, the charts in two: the first screen's, then the rest", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    apiRequests.length = 0;
    const started = Date.now();
    await page.goto(`${app.url}/systems/${seeded.systemId}`);
    await chart('CPU').locator('.uplot').waitFor();
    const firstChartMs = Date.now() - started;
    await page.waitForLoadState('networkidle');
    console.log(
      `# first chart after ${firstChartMs} ms; ${apiRequests.length} API requests: ${apiRequests.join(', ')}`,
    );
    assert.equal(apiRequests.filter((r) => r.endsWith('/metrics/batch')).length, 2, apiRequests.join('\n'));
    assert.equal(apiRequests.filter((r) => r.endsWith('/metrics')).length, 0, 'no request per series');
    assert.ok(apiRequests.length <= 10, `${apiRequests.length} requests:\n${apiRequests.join('\n')}`);
  });

  it('names every series with its label and unit, and groups charts by kind and unit', async () => {
    assert.deepEqual(await legend('Load'), ['Load, 1 min', 'Load, 5 min', 'Load, 15 min', 'Load per core, 5 min']);
    assert.deepEqual(await legend('Network traffic'), [
      'Received · bond0',
      'Received · eth0',
      'Received · eth1',
      'Sent · bond0',
      'Sent · eth0',
      'Sent · eth1',
    ]);
    const errors = await legend('Network errors and drops');
    assert.ok(errors.includes('Dropped packets · eth0') && errors.includes('Network errors · eth0'), errors.join());
    // percentages only on a percent axis: no flag among the disk space lines
    assert.deepEqual(await legend('Disk space'), [
      'Disk used · /',
      'Disk used · /home',
      'Disk used · /var',
      'Inodes used · /',
      'Inodes used · /home',
      'Inodes used · /var',
    ]);
    const status = chart('Status');
    assert.equal(await status.locator('.uplot').count(), 0, 'flags are a status strip, not lines');
    await status.getByText('SMART health · sda').waitFor();
    await status.getByText('Read-only · /', { exact: true }).waitFor();
    assert.equal(
      await status.getByTestId('status-row').filter({ hasText: 'Read-only · /' }).first().locator('.now').textContent(),
      'is read-only',
    );
    const uptime = await chart('Uptime').locator('.metric-chart__value').textContent();
    assert.match(uptime ?? '', /^\d+ (d|h|min|s)( \d+ (h|min|s))?$/, `uptime reads ${uptime}`);
    const traffic = await chart('Network traffic').locator('.metric-chart__value').first().textContent();
    assert.match(traffic ?? '', /^[\d.,]+ [kMG]?bit\/s$/, `traffic reads ${traffic}`);
    assert.equal(await page.getByTestId('no-data').count(), 0, 'every chart has data over 24 h');
  });

  it('loads a range change in one request and names the charts without data in one line', async () => {
    apiRequests.length = 0;
    await page
      .locator('mat-button-toggle', { hasText: /^\s*1 h\s*$/ })
      .locator('button')
      .click();
    await page.getByTestId('no-data').waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(apiRequests, [`GET /api/systems/${seeded.systemId}/metrics/batch`]);
    assert.equal((await page.getByTestId('no-data').textContent())?.trim(), 'No data for Temperature in the last 1 h.');
    assert.equal(await chart('Temperature').count(), 0);
  });

  it('passes axe and reads at 1440 and 390 px (screenshots)', async () => {
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app.url}/systems/${seeded.systemId}`);
      await chart('CPU').locator('.uplot').waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(shots, `system-page-${width}.png`) });
      // the console scrolls inside its shell: a second picture from the first charts down
      await chart('CPU').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shots, `system-page-${width}-charts.png`) });
      const found = await violations(page);
      assert.deepEqual(found, [], describeViolations(found));
      const sideways = await page.evaluate(() => {
        const { scrollingElement } = (
          globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
        ).document;
        return { scrollWidth: scrollingElement.scrollWidth, clientWidth: scrollingElement.clientWidth };
      });
      assert.ok(sideways.scrollWidth <= sideways.clientWidth, `${width} px scrolls sideways`);
    }
  });
});
