/**
 * `npm run bench -- console-scale [--systems 10000] [--seconds 60] [--changes-per-minute 200]`: the
 * console at MSP scale, in Debian Chromium with playwright-core, against the built
 * console (`ng build` first) on a real server with its real PostgreSQL and Redis. Seeds N systems
 * (20 customers × 5 clusters), then prints:
 * - first render of /systems: from navigation to the first system row on screen (median of 3 loads);
 * - the API: GET /api/systems (the whole array, what the page's first request is) and one page of
 *   GET /api/systems/page (200 rows), server time as the client sees it;
 * - a status change shown: with M status changes a minute spread over the fleet (each published on
 *   the bus as ingest does), the time from each change to the page showing it, for the changes to
 *   systems in the first rows (p50, p95, max);
 * - then the alerts page and the rule preview at the same fleet (console-scale-alerts.ts).
 * A benchmark: it prints figures, passes or fails nothing.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { startTestServer, testConfig } from '../../backend/src/testing/app.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { Client } from '../../backend/src/testing/http.js';
import { REPO_ROOT } from '../../backend/src/testing/script.js';
import { launchChromium } from '../e2e/browser.js';
import { benchAlertsAndPreview } from './console-scale-alerts.js';
import { median, percentile } from './statistics.js';

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

/** The status the page shows for the system named `name`, or null while its row is not on the page. */
function shownStatus(page: Page, name: string): Promise<string | null> {
  return page.evaluate((wanted) => {
    interface Node {
      textContent: string | null;
      querySelector(selector: string): (Node & { getAttribute(name: string): string | null }) | null;
    }
    const dom = globalThis as unknown as { document: { querySelectorAll(selector: string): Iterable<Node> } };
    for (const row of dom.document.querySelectorAll('[data-testid="system"]')) {
      if (row.querySelector('a')?.textContent?.trim() === wanted)
        return row.querySelector('[data-status]')?.getAttribute('data-status') ?? null;
    }
    return null;
  }, name);
}

/**
 * Where a load of /systems spent its time, from the page's own timings (milliseconds since navigation
 * start): the document's DOMContentLoaded, then each /api/ request (start → end, size) and the live socket.
 */
function renderBreakdown(page: Page): Promise<string> {
  return page.evaluate(() => {
    interface Entry {
      name: string;
      startTime: number;
      responseEnd: number;
      transferSize: number;
      domContentLoadedEventEnd?: number;
    }
    const perf = (globalThis as unknown as { performance: { getEntriesByType(type: string): Entry[]; now(): number } })
      .performance;
    const navigation = perf.getEntriesByType('navigation')[0];
    const parts = [`DOMContentLoaded ${Math.round(navigation?.domContentLoadedEventEnd ?? 0)}`];
    for (const entry of perf.getEntriesByType('resource')) {
      const url = new URL(entry.name);
      if (!url.pathname.startsWith('/api/')) continue;
      parts.push(
        `${url.pathname}${url.search} ${Math.round(entry.startTime)}→${Math.round(entry.responseEnd)}` +
          (entry.transferSize ? ` (${Math.round(entry.transferSize / 1024)} KiB)` : ''),
      );
    }
    parts.push(`row seen ${Math.round(perf.now())}`);
    return parts.join(', ');
  });
}

export async function benchConsoleScale(args: string[]): Promise<void> {
  const count = option(args, 'systems', 10_000);
  const seconds = option(args, 'seconds', 60);
  const perMinute = option(args, 'changes-per-minute', 200);
  const db = await createTestDatabase();
  const server = await startTestServer(
    testConfig(db.url, { STATIC_DIR: path.join(REPO_ROOT, 'dist/frontend/browser'), LOG_LEVEL: 'warn' }),
  );
  const browser = await launchChromium();
  try {
    // 20 customers × 5 clusters; systems named so that the first rows of the page are known
    const customers = await db
      .knex('customers')
      .insert(Array.from({ length: 20 }, (_, i) => ({ name: `Customer ${String(i).padStart(2, '0')}` })))
      .returning<{ id: number }[]>('id');
    const clusters: { id: number; customer_id: number }[] = [];
    for (const customer of customers)
      clusters.push(
        ...(await db
          .knex('clusters')
          .insert(
            Array.from({ length: 5 }, (_, i) => ({
              customer_id: customer.id,
              name: `cluster-${i}`,
              enrollment_key: `bench-${customer.id}-${i}`,
            })),
          )
          .returning<{ id: number; customer_id: number }[]>(['id', 'customer_id'])),
      );
    const now = new Date();
    const rows = Array.from({ length: count }, (_, i) => {
      const cluster = clusters[i % clusters.length] as { id: number; customer_id: number };
      return {
        customer_id: cluster.customer_id,
        cluster_id: cluster.id,
        name: `host-${String(i).padStart(5, '0')}`,
        hostname: `host-${i}.example`,
        status: 'ONLINE',
        last_seen_at: now,
        agent_version: '2.28.1',
        os: 'Debian 12',
      };
    });
    for (let at = 0; at < rows.length; at += 1000) await db.knex('systems').insert(rows.slice(at, at + 1000));
    const systems = await db
      .knex('systems')
      .orderBy('id')
      .select<{ id: number; name: string; cluster_id: number }[]>('id', 'name', 'cluster_id');

    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    const api = new Client(server.url);
    await api.signIn(admin.email, admin.password);
    for (const [label, url] of [
      ['GET /api/systems (whole array)', '/api/systems'],
      ['GET /api/systems/page?limit=200&sort=customer', '/api/systems/page?limit=200&sort=customer'],
      ['GET /api/systems/page?limit=200&sort=status&q=host-0', '/api/systems/page?limit=200&sort=status&q=host-0'],
    ] as const) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        const reply = await fetch(`${server.url}${url}`, { headers: { cookie: api.cookieHeader() } });
        bytes = (await reply.arrayBuffer()).byteLength;
        times.push(performance.now() - started);
      }
      console.log(`console-scale: ${label}: median ${median(times).toFixed(0)} ms, ${(bytes / 1024).toFixed(0)} KiB`);
    }

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.url}/login`);
    await page.getByLabel('E-mail or username').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));

    // the page's first rows: the lowest names of the first customer's first cluster
    const firstRows = systems
      .filter((s) => s.cluster_id === clusters[0]?.id)
      .map((s) => s.name)
      .sort();
    const renders: number[] = [];
    const breakdowns: string[] = [];
    // snapshot frames of the live channel, to see what they cost the page
    const snapFrames: { at: number; bytes: number }[] = [];
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        if (payload.includes('"t":"snap"')) snapFrames.push({ at: performance.now(), bytes: payload.length });
      }),
    );
    for (let i = 0; i < 3; i += 1) {
      const started = performance.now();
      await page.goto(`${server.url}/systems`);
      await page
        .getByText(firstRows[0] as string, { exact: true })
        .first()
        .waitFor();
      renders.push(performance.now() - started);
      const snaps = snapFrames
        .filter((frame) => frame.at >= started)
        .map((frame) => `${Math.round(frame.at - started)} ms ${Math.round(frame.bytes / 1024)} KiB`);
      breakdowns.push(`${await renderBreakdown(page)}; snapshots received: ${snaps.join(', ') || 'none'}`);
    }
    const domRows = await page.locator('[data-testid="system"]').count();
    console.log(
      `console-scale: first render of /systems at ${count} systems: median ${median(renders).toFixed(0)} ms ` +
        `(${renders.map((ms) => ms.toFixed(0)).join(', ')}), ${domRows} system rows in the DOM`,
    );
    for (const line of breakdowns) console.log(`console-scale:   where the time went: ${line}`);

    // status changes spread over the fleet; the measured ones are systems in the first rows on screen
    const watched = systems.filter((s) => firstRows.slice(0, 8).includes(s.name));
    const intervalMs = 60_000 / perMinute;
    const latencies: number[] = [];
    const missed: string[] = [];
    const deadline = Date.now() + seconds * 1000;
    let n = 0;
    const pending: Promise<void>[] = [];
    while (Date.now() < deadline) {
      n += 1;
      const measured = n % 10 === 0;
      const target = measured
        ? (watched[(n / 10) % watched.length] as { id: number; name: string })
        : (systems[Math.floor(Math.random() * systems.length)] as { id: number; name: string });
      const status = n % 20 < 10 ? 'WARNING' : 'ONLINE';
      const current = await db.knex('systems').where({ id: target.id }).first('status');
      const next = current?.status === status ? (status === 'WARNING' ? 'CRITICAL' : 'WARNING') : status;
      await db.knex('systems').where({ id: target.id }).update({ status: next });
      const changedAt = performance.now();
      void server.bus.publish('systems', { id: target.id });
      if (measured)
        pending.push(
          (async () => {
            const until = Date.now() + 15_000;
            while (Date.now() < until) {
              if ((await shownStatus(page, target.name)) === next) {
                latencies.push(performance.now() - changedAt);
                return;
              }
              await new Promise((resolve) => setTimeout(resolve, 25));
            }
            missed.push(target.name);
          })(),
        );
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    await Promise.all(pending);
    latencies.sort((a, b) => a - b);
    console.log(
      `console-scale: status change shown at ${count} systems, ${perMinute} changes/min for ${seconds} s: ` +
        `${latencies.length} measured, p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
        `p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${(latencies.at(-1) ?? 0).toFixed(0)} ms` +
        (missed.length ? `, ${missed.length} not shown within 15 s` : ''),
    );
    await benchAlertsAndPreview({ knex: db.knex, url: server.url, cookie: api.cookieHeader(), page, systems });
  } finally {
    await browser.close();
    await server.stop();
    await db.drop();
  }
}
