/**
 * End to end, the live channel saying what changed (docs/decisions.md "Live changes"): an open console on the systems page
 * follows its snapshots without a single HTTP request while an agent reports (last seen moves), and a
 * rule or maintenance window that a second administrator changes appears on the first one's open page
 * within 2 s. Built console, real server in production mode behind nginx with TLS, Debian Chromium.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { APIRequestContext, Browser, Page } from 'playwright-core';
import { createAccount, createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { SimulatedAgent } from '../agent-sim/agent.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';

const WEBHOOK_SECRET = 'e2e-live-webhook-secret-0123456789abcdef';
const ENROLLMENT_KEY = 'e2e-live-enrollment-key-0123456789abcd';
/** Two of the hub's 25 s snapshot recomputations, and then some. */
const QUIET_WINDOW_MS = 55_000;

function figure(text: string): void {
  process.stdout.write(`e2e: ${text}\n`);
}

describe('the live channel says what changed', () => {
  let db: TestDatabase;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  /** Snapshot frames the console's live socket received so far. */
  let snapshots = 0;
  /** The second administrator, through the API with its own session. */
  let other: { request: APIRequestContext; csrf: string };

  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, { WEBHOOK_SECRET });
    await ensureDefaultRules(db.knex);
    const customerId = await createCustomer(db.knex, 'Acme');
    await db.knex('clusters').insert({ customer_id: customerId, name: 'web', enrollment_key: ENROLLMENT_KEY });
    const first = await createAccount(db.knex, { role: 'ADMIN', username: 'first' });
    const second = await createAccount(db.knex, { role: 'ADMIN', username: 'second' });
    browser = await launchChromium();
    // nginx's certificate is self-signed
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(15_000);
    // before the console opens its one live socket (at sign-in)
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (String(frame.payload).startsWith('{"t":"snap"')) snapshots += 1;
      }),
    );
    await page.goto(`${app.url}/login`);
    await page.getByLabel('E-mail or username').fill(first.email);
    await page.getByLabel('Password', { exact: true }).fill(first.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Argus services: all operational').waitFor();

    const request = (await browser.newContext({ ignoreHTTPSErrors: true })).request;
    const login = await request.post(`${app.url}/api/auth/login`, {
      data: { identifier: second.email, password: second.password },
      headers: { origin: app.url },
    });
    assert.equal(login.status(), 200, await login.text());
    other = { request, csrf: ((await login.json()) as { csrfToken: string }).csrfToken };
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await db?.drop();
  });

  /** A change the second administrator makes through the API. */
  async function otherAdmin(method: 'post' | 'patch', path: string, data: unknown): Promise<{ id: number }> {
    const reply = await other.request[method](`${app.url}${path}`, {
      data,
      headers: { origin: app.url, 'x-csrf-token': other.csrf },
    });
    assert.ok(reply.ok(), `${method} ${path}: ${reply.status()} ${await reply.text()}`);
    return (await reply.json()) as { id: number };
  }

  it('follows the systems page from its snapshots, with no HTTP request, while an agent reports', async () => {
    const agent = new SimulatedAgent({
      url: `${app.appUrl}/api/webhook/metrics`,
      secret: WEBHOOK_SECRET,
      enrollment: ENROLLMENT_KEY,
      sub: 'e2e-live-host',
      hostname: 'live-01',
      seed: 11,
    });
    const report = () => {
      agent.collect();
      return agent.send();
    };
    assert.equal((await report())?.status, 200);
    await page.goto(`${app.url}/systems`);
    await page.getByText('live-01').first().waitFor();
    // settled: the page's own first requests are done
    await page.waitForLoadState('networkidle');

    const requests: string[] = [];
    const onRequest = (req: { url(): string }) => {
      const url = new URL(req.url());
      if (url.pathname.startsWith('/api/') && url.pathname !== '/api/live') requests.push(url.pathname);
    };
    page.on('request', onRequest);
    const snapshotsBefore = snapshots;
    const lastSeen = page.locator('[data-testid="system"]', { hasText: 'live-01' }).locator('time[datetime]').first();
    const shown = new Set<string>();
    const started = Date.now();
    const timer = setInterval(() => void report(), 5_000);
    try {
      while (Date.now() - started < QUIET_WINDOW_MS) {
        shown.add((await lastSeen.getAttribute('datetime')) ?? '');
        await page.waitForTimeout(1_000);
      }
    } finally {
      clearInterval(timer);
      page.off('request', onRequest);
    }
    const received = snapshots - snapshotsBefore;
    figure(
      `systems page, ${QUIET_WINDOW_MS / 1000} s with an agent reporting every 5 s: ${requests.length} HTTP requests, ` +
        `${received} snapshots received, ${shown.size} distinct last-seen times shown`,
    );
    assert.deepEqual(requests, [], 'no HTTP request: the snapshots carry every update');
    assert.ok(received >= 2, `${received} snapshots`);
    assert.ok(shown.size >= 2, `last seen moved on the open page (${[...shown].join(', ')})`);
  });

  it("shows another administrator's rule change on the open rules page within 2 s", async () => {
    await page.goto(`${app.url}/rules`);
    const rule = await db.knex('alert_rules').where({ key: 'cpu.high' }).whereNull('scope_type').first('id');
    assert.ok(rule, 'the default rule cpu.high exists');
    await page.getByText('cpu.high').first().waitFor();
    const started = Date.now();
    await otherAdmin('patch', `/api/alert-rules/${(rule as { id: number }).id}`, { name: 'CPU busy (edited live)' });
    await page.getByText('CPU busy (edited live)').waitFor({ timeout: 5_000 });
    const seconds = (Date.now() - started) / 1000;
    figure(`a rule edited by a second administrator appeared on the open rules page after ${seconds.toFixed(2)} s`);
    assert.ok(seconds < 2, `${seconds} s`);
  });

  it("shows another administrator's new maintenance window on the open maintenance page within 2 s", async () => {
    await page.goto(`${app.url}/maintenance`);
    await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
    const customer = await db.knex('customers').where({ name: 'Acme' }).first('id');
    const started = Date.now();
    await otherAdmin('post', '/api/maintenance-windows', {
      name: 'Kernel patching (live)',
      kind: 'weekly',
      weekdays: [0],
      startTime: '02:00',
      durationMinutes: 60,
      scope: { type: 'customer', id: (customer as { id: number }).id },
    });
    await page.getByText('Kernel patching (live)').waitFor({ timeout: 5_000 });
    const seconds = (Date.now() - started) / 1000;
    figure(`a maintenance window added by a second administrator appeared after ${seconds.toFixed(2)} s`);
    assert.ok(seconds < 2, `${seconds} s`);
  });
});
