/**
 * `npm run bench -- live-console [--seconds 120]`: the console on the live channel, measured in the
 * demo (`npm run demo`: embedded TimescaleDB, its simulated agents reporting every 30 s, faults and
 * all) with Debian Chromium. Prints: the HTTP requests one console on the systems page makes while
 * the snapshots keep it current, and how long a rule and a maintenance window that a second
 * administrator changes take to appear on the first one's open page.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '../../backend/src/testing/http.js';
import { freePort, waitFor } from '../../backend/src/testing/net.js';
import { REPO_ROOT } from '../../backend/src/testing/script.js';
import { launchChromium } from '../e2e/browser.js';

const PASSWORD = 'a long and happy passphrase';

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

export async function benchLiveConsole(args: string[]): Promise<void> {
  const seconds = option(args, 'seconds', 120);
  const dir = await mkdtemp(path.join(tmpdir(), 'argus-bench-demo-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const demo = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'ops/demo/demo.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), ARGUS_DEMO_DIR: dir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const browser = await launchChromium();
  try {
    await waitFor(
      async () => {
        try {
          return (await fetch(`${url}/api/health`)).ok;
        } catch {
          return false;
        }
      },
      180_000,
      500,
    );
    const first = new Client(url);
    const setup = await first.post('/api/setup', {
      name: 'First Admin',
      email: 'first@example.com',
      password: PASSWORD,
    });
    if (setup.status !== 201 && setup.status !== 200) throw new Error(`setup: ${setup.status}`);
    await first.signIn('first@example.com', PASSWORD);
    const created = await first.post('/api/users', {
      name: 'Second Admin',
      email: 'second@example.com',
      role: 'ADMIN',
      password: PASSWORD,
    });
    if (created.status !== 201) throw new Error(`second admin: ${created.status} ${JSON.stringify(created.body)}`);
    const second = new Client(url);
    await second.signIn('second@example.com', PASSWORD);
    // the simulated agents start once the server is healthy: wait for them to report
    await waitFor(
      async () => ((await first.get('/api/systems')).body as { status: string }[]).some((s) => s.status !== 'PENDING'),
      120_000,
      1_000,
    );

    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    let snapshots = 0;
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (String(frame.payload).startsWith('{"t":"snap"')) snapshots += 1;
      }),
    );
    await page.goto(`${url}/login`);
    await page.getByLabel('E-mail or username').fill('first@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    await page.goto(`${url}/systems`);
    await page.getByRole('heading', { name: 'Systems' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    const systems = ((await first.get('/api/systems')).body as unknown[]).length;

    const requests: string[] = [];
    page.on('request', (req) => {
      const { pathname } = new URL(req.url());
      if (pathname.startsWith('/api/') && pathname !== '/api/live') requests.push(pathname);
    });
    const before = snapshots;
    await page.waitForTimeout(seconds * 1000);
    console.log(
      `live console: systems page of the demo (${systems} systems, agents every 30 s with faults), ${seconds} s: ` +
        `${requests.length} HTTP requests${requests.length ? ` (${[...new Set(requests)].join(', ')})` : ''}, ` +
        `${snapshots - before} snapshots applied in place`,
    );

    await page.goto(`${url}/rules`);
    await page.getByText('cpu.high').first().waitFor();
    const rules = (await second.get('/api/alert-rules')).body as { id: number; key: string; scope: unknown }[];
    const rule = rules.find((r) => r.key === 'cpu.high' && r.scope === null);
    if (!rule) throw new Error('no global cpu.high rule');
    let started = performance.now();
    await second.patch(`/api/alert-rules/${rule.id}`, { name: 'CPU busy (edited by the second admin)' });
    await page.getByText('CPU busy (edited by the second admin)').waitFor();
    console.log(
      `live console: a rule edited by a second admin shown after ${(performance.now() - started).toFixed(0)} ms`,
    );

    await page.goto(`${url}/maintenance`);
    await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
    const customers = (await second.get('/api/customers')).body as { id: number }[];
    started = performance.now();
    const window = await second.post('/api/maintenance-windows', {
      name: 'Patch night (second admin)',
      kind: 'weekly',
      weekdays: [0],
      startTime: '02:00',
      durationMinutes: 60,
      scope: { type: 'customer', id: customers[0]?.id },
    });
    if (window.status !== 201) throw new Error(`window: ${window.status} ${JSON.stringify(window.body)}`);
    await page.getByText('Patch night (second admin)').waitFor();
    console.log(
      `live console: a maintenance window added by a second admin shown after ${(performance.now() - started).toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
    demo.kill('SIGTERM');
    await new Promise((resolve) => demo.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
