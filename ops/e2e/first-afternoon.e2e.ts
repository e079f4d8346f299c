/**
 * End to end, what a newcomer reads in the first afternoon and must be able to trust: the built
 * console behind nginx, a fleet of three systems (one reporting, two offline) of two customers.
 * The availability report counts an offline period as downtime and not a CRITICAL alert of a rule
 * that is no downtime, and says what counted; the Overview's first line is about the fleet, Argus's
 * own health named apart; the Systems list shows CPU, memory and the fullest disk as bars with
 * values; an offline alert's text gives the time on the customer's clock, far from UTC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import type { Browser, Page } from 'playwright-core';
import { createAccount, createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { SimulatedAgent } from '../agent-sim/agent.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';

const WEBHOOK_SECRET = 'e2e-first-afternoon-webhook-secret-01';
const CRON_SECRET = 'e2e-first-afternoon-cron-secret-0123456';
const ENROLLMENT_KEY = 'e2e-first-afternoon-enrollment-key-01';
/** 5 h 45 min from UTC: a time shown in UTC differs from the local one in its minutes too. */
const TIME_ZONE = 'Asia/Kathmandu';
/** What the reporting system's agent says about itself (the Systems list's bars). */
const USAGE = { cpu: 37.4, memory: 62.6, fullestDisk: 88.2, otherDisks: 20 };

async function insertSystem(
  knex: Knex,
  fields: { customer_id: number; name: string; status: string; last_seen_at?: Date; created_at?: string },
): Promise<number> {
  const [row] = await knex('systems')
    .insert({ hostname: fields.name, ...fields })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

async function evaluate(app: ProductionConsole): Promise<void> {
  const run = await fetch(`${app.appUrl}/api/cron/evaluate-alerts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  assert.equal(run.status, 200);
}

describe('e2e: the first afternoon, what a newcomer reads', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  let reportCustomer: number;
  let silentSeenAt: Date;
  let fullestMount: string;

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET, CRON_SECRET });
    const knex = db.knex;
    await ensureDefaultRules(knex);

    // a customer far from UTC: one reporting system, one that stopped reporting ten minutes ago
    const far = await createCustomer(knex, 'Himalaya Hosting');
    await knex('customers').where({ id: far }).update({ time_zone: TIME_ZONE });
    await knex('clusters').insert({ customer_id: far, name: 'web', enrollment_key: ENROLLMENT_KEY });
    const agent = new SimulatedAgent({
      url: `${app.appUrl}/api/webhook/metrics`,
      secret: WEBHOOK_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-first-afternoon-host',
      hostname: 'hh-web',
      seed: 5,
    });
    const report = agent.collect();
    const disks = report.metrics.filter((m) => m.name === 'disk.used_pct');
    assert.ok(disks.length > 1, 'the simulator reports more than one disk');
    for (const [i, disk] of disks.entries()) disk.value = i === 1 ? USAGE.fullestDisk : USAGE.otherDisks;
    fullestMount = (disks[1] as { instance: string }).instance;
    const cpu = report.metrics.find((m) => m.name === 'cpu.usage_pct');
    const memory = report.metrics.find((m) => m.name === 'mem.used_pct');
    assert.ok(cpu && memory, 'the simulator reports CPU and memory use');
    cpu.value = USAGE.cpu;
    memory.value = USAGE.memory;
    assert.equal((await agent.send())?.status, 200);
    silentSeenAt = new Date(Date.now() - 10 * 60_000);
    await insertSystem(knex, { customer_id: far, name: 'hh-db', status: 'ONLINE', last_seen_at: silentSeenAt });

    // a customer with October on record: offline 3 hours, and a read-only file system for 10 hours
    reportCustomer = await createCustomer(knex, 'Report Ltd');
    const reported = await insertSystem(knex, {
      customer_id: reportCustomer,
      name: 'rp-1',
      status: 'OFFLINE',
      created_at: '2026-01-01T00:00Z',
    });
    const alert = { system_id: reported, customer_id: reportCustomer, severity: 'CRITICAL', state: 'resolved' };
    await knex('alerts').insert([
      {
        ...alert,
        rule_key: 'system.offline',
        rule_kind: 'offline',
        message: 'No report since 2026-10-10T10:00:00.000Z',
        started_at: '2026-10-10T10:00:00Z',
        resolved_at: '2026-10-10T13:00:00Z',
      },
      {
        ...alert,
        rule_key: 'disk.readonly',
        rule_kind: 'metric',
        instance: '/run/credentials',
        message: 'Filesystem /run/credentials is read-only',
        started_at: '2026-10-15T00:00:00Z',
        resolved_at: '2026-10-15T10:00:00Z',
      },
    ]);

    // the scheduler's call: hh-db turns OFFLINE and its offline alert is raised (within a run or two)
    for (let run = 0; run < 3; run++) {
      await evaluate(app);
      const open = await knex('alerts').where({ rule_key: 'system.offline', state: 'open' }).first('id');
      if (open) break;
    }
    assert.ok(await knex('alerts').where({ rule_key: 'system.offline', state: 'open' }).first('id'));

    browser = await launchChromium();
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(20_000);
    const admin = await createAccount(knex, { role: 'ADMIN', username: 'first-afternoon-admin' });
    await page.goto(`${app.url}/login`);
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('health').getByText('Argus services: all operational').waitFor();
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  it('counts the offline period as downtime and not the critical read-only alert, and says what counted', async () => {
    await page.goto(`${app.url}/reports/availability?customer=${reportCustomer}&from=2026-10-01&to=2026-10-31`);
    const row = page.getByTestId('system-row').filter({ hasText: 'rp-1' });
    await row.waitFor();
    // October in UTC is 744 hours, 3 of them down: 741 / 744 (13 down, 98.252 %, were the alert counted)
    assert.equal((await row.getByTestId('availability').textContent())?.trim(), '99.596 %');
    assert.equal((await row.locator('td').nth(2).textContent())?.trim(), '3 h');
    assert.equal(await row.getByRole('img').getAttribute('aria-label'), 'Timeline: down 3 h in 1 period');
    const counted = ((await page.getByTestId('counted').textContent()) ?? '').trim();
    assert.match(counted, /^Counted as down: a system offline\b/);
    assert.match(counted, /Other alerts are not downtime\.$/);
    assert.doesNotMatch(counted, /read-only/i);
  });

  it("names the fleet's state first, with the systems down, and Argus's own health as such", async () => {
    await page.goto(`${app.url}/`);
    const line = page.getByTestId('fleet-line');
    await line.waitFor();
    const text = ((await line.textContent()) ?? '').trim();
    assert.match(text, /^2 of 3 systems offline\b/, text);
    assert.match(text, /\d+ alerts? open, \d+ critical/, text);
    assert.match((await line.getAttribute('class')) ?? '', /banner--down/);
    // the first line of the page's banners is the fleet's, the health of Argus itself comes after it
    const banners = await page.locator('p.banner').evaluateAll((ps) => ps.map((p) => p.getAttribute('data-testid')));
    assert.deepEqual(banners.slice(0, 2), ['fleet-line', 'health']);
    const health = ((await page.getByTestId('health').textContent()) ?? '').trim();
    assert.match(health, /^Argus services: all operational/);
  });

  it('shows CPU, memory and the fullest disk as bars with their values in the Systems list', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${app.url}/systems`);
    const row = page.getByTestId('system').filter({ has: page.getByRole('link', { name: 'hh-web', exact: true }) });
    await row.waitFor();
    const figure = (name: string) => row.locator(`[data-figure="${name}"]`);
    const figures = { cpu: '37 %', memory: '63 %', disk: '88 %' };
    for (const [name, value] of Object.entries(figures)) {
      assert.equal((await figure(name).locator('.value').textContent())?.trim(), value, name);
      const fill = figure(name).locator('.fill');
      assert.ok(await fill.isVisible(), `${name} has a visible bar`);
      const width = Number.parseFloat((await fill.getAttribute('style'))?.match(/width:\s*([\d.]+)%/)?.[1] ?? 'NaN');
      assert.ok(Math.abs(width - Number.parseFloat(value)) < 1, `${name} bar is ${width} % wide`);
    }
    assert.equal(await figure('disk').locator('.value').getAttribute('title'), `Fullest disk: ${fullestMount}`);
    // a system that never reported has no figures: a dash, no bar
    const silent = page.getByTestId('system').filter({ has: page.getByRole('link', { name: 'rp-1', exact: true }) });
    assert.equal((await silent.locator('[data-figure="cpu"] .value').textContent())?.trim(), '—');
    assert.equal(await silent.locator('[data-figure="cpu"] .fill').count(), 0);
  });

  it("writes an offline alert's time on the customer's clock, with how long ago", async () => {
    await page.goto(`${app.url}/alerts`);
    const alert = page.getByTestId('alert').filter({ has: page.getByRole('link', { name: 'hh-db', exact: true }) });
    await alert.waitFor();
    const text = ((await alert.getByTestId('alert-text').textContent()) ?? '').trim();
    const clock = (timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(silentSeenAt);
    assert.notEqual(clock(TIME_ZONE), clock('UTC'));
    assert.match(text, new RegExp(`^No report since (\\d+ \\w+, )?${clock(TIME_ZONE)} \\(1\\d min ago\\)$`), text);
    assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT/);
  });
});
