/**
 * `npm run bench -- overview [--systems 10000] [--customers 200] [--runs 20]`: the home page at
 * fleet scale. Seeds a throwaway database with the systems (statuses mixed), about three alerts per
 * system over the last two days (a tenth still open), maintenance windows and open incidents, then
 * prints: the overview's computation alone (the service, in this process), GET /api/overview as a
 * signed-in ADMIN and as a VIEWER of a tenth of the customers (through the production server of the
 * e2e tests, which also checks each answer against the OpenAPI document), and the console's first
 * render of `/` in Debian Chromium (navigation to every customer drawn, as the test driver sees it
 * and as the page's own clock does), then how soon a card's details follow a scroll. Needs the
 * built console (`ng build`). Prints figures; passes or fails nothing.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { systemClock } from '../../backend/src/lib/clock.js';
import { createOverviewRepo } from '../../backend/src/overview/repo.js';
import { createOverviewService } from '../../backend/src/overview/service.js';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { REPO_ROOT } from '../../backend/src/testing/script.js';
import { launchChromium } from '../e2e/browser.js';
import { startProductionConsole } from '../e2e/production-console.js';

export function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

export function summary(label: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  console.log(
    `${label}: p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms (${times.length} runs)`,
  );
}

export async function timed(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  await work(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await work();
    times.push(performance.now() - t0);
  }
  return times;
}

export async function seedOverview(db: Knex, systems: number, customers: number): Promise<void> {
  await db.raw(
    `INSERT INTO customers (name, time_zone)
     SELECT 'Customer ' || lpad(n::text, 4, '0'), CASE WHEN n % 3 = 0 THEN 'Europe/Berlin' ELSE 'UTC' END
       FROM generate_series(1, ?) n`,
    [customers],
  );
  await db.raw(
    `INSERT INTO clusters (customer_id, name, enrollment_key)
     SELECT c.id, 'main', 'bench-overview-key-' || lpad(c.id::text, 20, '0') FROM customers c`,
  );
  await db.raw(
    `INSERT INTO systems (customer_id, cluster_id, name, hostname, status, last_seen_at)
     SELECT c.id, cl.id, 'host-' || n, 'host-' || n || '.example.net',
            (ARRAY['ONLINE','ONLINE','ONLINE','ONLINE','ONLINE','ONLINE','WARNING','CRITICAL','OFFLINE','STANDBY'])[1 + n % 10],
            now()
       FROM generate_series(1, ?) n
       JOIN customers c ON c.id = 1 + n % ?
       JOIN clusters cl ON cl.customer_id = c.id`,
    [systems, customers],
  );
  // ~3 alerts per system over the last 48 h, a tenth still open (one open alert per rule and system)
  await db.raw(
    `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, message, state, started_at, resolved_at)
     SELECT 'bench.rule' || k, 'metric', s.id, s.customer_id,
            (ARRAY['INFO','WARNING','CRITICAL'])[1 + (s.id + k) % 3], 'bench',
            CASE WHEN (s.id + k) % 10 = 0 THEN 'open' ELSE 'resolved' END,
            now() - make_interval(mins => ((s.id * 37 + k * 911) % 2880)),
            CASE WHEN (s.id + k) % 10 = 0 THEN NULL
                 ELSE now() - make_interval(mins => ((s.id * 37 + k * 911) % 2880)) + make_interval(mins => 1 + (s.id + k) % 90)
            END
       FROM systems s, generate_series(1, 3) k`,
  );
  await db.raw(
    `INSERT INTO maintenance_windows (customer_id, scope_type, scope_id, name, kind, starts_at, ends_at)
     SELECT c.id, 'cluster', cl.id, 'bench window', 'once', now() - interval '1 hour', now() + interval '1 hour'
       FROM customers c JOIN clusters cl ON cl.customer_id = c.id WHERE c.id % 20 = 0`,
  );
  await db.raw(
    `INSERT INTO maintenance_windows (customer_id, scope_type, scope_id, name, kind, weekdays, start_time, duration_minutes)
     SELECT c.id, 'customer', c.id, 'weekly bench window', 'weekly', '{0,6}', '02:00', 120
       FROM customers c WHERE c.id % 7 = 0`,
  );
  await db.raw(
    `INSERT INTO incidents (customer_id, cluster_id, title, started_at)
     SELECT c.id, cl.id, 'Site down: main of ' || c.name, now() - interval '10 minutes'
       FROM customers c JOIN clusters cl ON cl.customer_id = c.id WHERE c.id % 40 = 0`,
  );
  await db.raw('VACUUM ANALYZE customers, clusters, systems, alerts, maintenance_windows, incidents');
}

export async function benchOverview(args: string[]): Promise<void> {
  const systems = option(args, 'systems', 10_000);
  const customers = option(args, 'customers', 200);
  const runs = option(args, 'runs', 20);
  if (!existsSync(path.join(REPO_ROOT, 'dist/frontend/browser/index.html'))) {
    console.log('overview: build the console first (node_modules/.bin/ng build)');
    return;
  }
  const db = await createTestDatabase();
  const app = await startProductionConsole(db.url);
  const browser = await launchChromium();
  try {
    const t0 = performance.now();
    await seedOverview(db.knex, systems, customers);
    const counts = await db.knex.raw<{ rows: { alerts: number; open: number }[] }>(
      "SELECT count(*)::int AS alerts, count(*) FILTER (WHERE state = 'open')::int AS open FROM alerts",
    );
    console.log(
      `overview: seeded ${systems} systems at ${customers} customers, ${counts.rows[0]?.alerts} alerts ` +
        `(${counts.rows[0]?.open} open) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const service = createOverviewService({ repo: createOverviewRepo(db.knex), clock: systemClock });
    summary('overview computation (all customers, in process)', await timed(runs, () => service.compute(null)));
    const granted = new Set(Array.from({ length: Math.ceil(customers / 10) }, (_, i) => i + 1));
    summary('overview computation (a tenth of the customers)', await timed(runs, () => service.compute(granted)));

    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    const viewer = await createAccount(db.knex, { role: 'VIEWER', customerIds: [...granted] });
    const signedIn = async (account: { email: string; password: string }) => {
      const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
      await page.goto(`${app.url}/login`);
      await page.getByLabel('E-mail or username').fill(account.email);
      await page.getByLabel('Password', { exact: true }).fill(account.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      return page;
    };
    const page = await signedIn(admin);
    for (const [label, on] of [
      ['ADMIN', page],
      ['VIEWER of a tenth', await signedIn(viewer)],
    ] as const) {
      let bytes = 0;
      // through nginx with TLS, with the browser's cookie, as the console asks
      const times = await timed(runs, async () => {
        const reply = await on.request.get(`${app.url}/api/overview`);
        if (reply.status() !== 200) throw new Error(`GET /api/overview: ${reply.status()}`);
        bytes = (await reply.body()).length;
      });
      summary(`GET /api/overview as ${label} (${(bytes / 1024).toFixed(0)} KiB)`, times);
    }

    // in the page, from its navigation start: when the last card is in the DOM, and the frame after
    // (painted); Node's figures add the round trips of the test driver on a loaded machine
    await page.addInitScript(`
      new MutationObserver((_, observer) => {
        if (document.querySelectorAll('[data-testid="customer"]').length < ${customers}) return;
        observer.disconnect();
        globalThis.__drawnAt = performance.now();
        requestAnimationFrame(() => setTimeout(() => (globalThis.__paintedAt = performance.now())));
      }).observe(document, { childList: true, subtree: true });
    `);
    const shells: number[] = [];
    const renders: number[] = [];
    const inPage: number[] = [];
    const painted: number[] = [];
    const scrolled: number[] = [];
    for (let i = 0; i < Math.min(runs, 10); i++) {
      const started = performance.now();
      await page.goto(`${app.url}/`);
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      shells.push(performance.now() - started);
      // every customer drawn: the last one's card is in the page
      const last = page.locator('[data-testid="customer"]').nth(customers - 1);
      await last.waitFor();
      renders.push(performance.now() - started);
      await page.waitForFunction('globalThis.__paintedAt !== undefined');
      inPage.push(Number(await page.evaluate('globalThis.__drawnAt')));
      painted.push(Number(await page.evaluate('globalThis.__paintedAt')));
      // a card's badges and offenders are drawn as it nears the screen: the last one, scrolled to
      const scrolledAt = performance.now();
      await last.scrollIntoViewIfNeeded();
      await last.locator('[data-testid="customer-details"]').waitFor();
      scrolled.push(performance.now() - scrolledAt);
    }
    summary('console: / loaded until its heading shows (the shell, sign-in check, lazy page)', shells);
    summary(`console: / loaded until all ${customers} customers are drawn (Chromium, warm cache)`, renders);
    summary(`  the same in the page, from its navigation start: all ${customers} customers in the DOM`, inPage);
    summary(`  the same in the page: the frame after them painted`, painted);
    summary(`console: scrolled to the last customer until its statuses and offenders are drawn`, scrolled);
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (this machine: ${cpus().length} cores)`,
    );
  } finally {
    await browser.close();
    await app.stop();
    await db.drop();
  }
}
