/**
 * The production stack for real, as README "Production" runs it: the image built from the Dockerfile
 * (on a local Node 24 stand-in, ops/deploy/offline-images.sh), docker-compose.prod.yml started with
 * `-p argus` from a deployment directory with its `.env`, the database a local TimescaleDB stand-in,
 * and the nginx example with TLS in front (AUTH_URL https). Then what a user and an operator do:
 * sign in with Chromium, an agent reports through nginx, the scheduler evaluates, the app is stopped
 * with SIGTERM, the database restarts under it, the stack goes down and up again, and the ops scripts
 * run. Needs a Docker engine (ops/test/prepare-machine.sh starts one); fails, saying why, without it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { freePort, waitFor } from '../../backend/src/testing/net.js';
import { SimulatedAgent, type SendResult } from '../agent-sim/agent.js';
import { createAdministrator, launchChromium } from '../e2e/browser.js';
import { startTlsProxy, type TlsProxy } from '../deploy/tls-proxy.js';
import { REPO_ROOT, runTool } from '../deploy/support.js';
import {
  buildImage,
  compose,
  composeOk,
  containerOf,
  containerState,
  docker,
  dockerEnv,
  figure,
  layOutDeployment,
  offlineImages,
  psql,
  randomSecrets,
  requireEngine,
  testCodeInApp,
} from './deployment.js';
import { pingChecksInTheImage } from './ping-checks.js';
import { httpsClient, type HttpsClient, type Reply } from './https-client.js';

const PASSWORD = 'a long enough password for the stack';
const NEW_PASSWORD = 'another long password after the reset';
const SECRETS = randomSecrets();

describe('the production stack (image, compose, nginx with TLS, Chromium)', { timeout: 1_800_000 }, () => {
  let dir: string;
  let proxy: TlsProxy;
  let appPort: number;
  let authUrl: string;
  let api: HttpsClient;
  let browser: Browser | undefined;
  let upAt = 0;
  let enrollment = '';
  const migrationFiles = (async () =>
    (await readdir(path.join(REPO_ROOT, 'db/migrations'))).filter((f) => /^\d{4}_.*\.ts$/.test(f)).length)();

  function health(): Promise<Reply> {
    return api.request('GET', '/api/health');
  }

  async function waitHealthy(timeoutMs: number): Promise<number> {
    const started = performance.now();
    await waitFor(async () => (await health()).status === 200, timeoutMs, 200);
    return (performance.now() - started) / 1000;
  }

  before(async () => {
    await requireEngine();
    const images = await offlineImages();
    const built = await buildImage(images['ARGUS_NODE_IMAGE']!);
    figure(`image built in ${built.seconds.toFixed(0)} s, ${built.megabytes.toFixed(0)} MB`);

    dir = await mkdtemp(path.join(tmpdir(), 'argus-stack-'));
    appPort = await freePort();
    proxy = await startTlsProxy({ appPort });
    authUrl = proxy.origin;
    api = httpsClient(proxy.origin, proxy.cert);
    // the ping checks' targets are on the compose network: private addresses, allowed as a server inside
    // the network it checks allows them
    const settings = { AUTH_URL: authUrl, ...SECRETS, ARGUS_PORT: String(appPort), ARGUS_ALLOW_PRIVATE_CHECKS: 'true' };
    await layOutDeployment(dir, { ...settings, ...images });
    // a previous run that was cut off leaves its containers and volume behind
    await compose(dir, ['down', '-v', '--remove-orphans']);
  });

  after(async () => {
    await browser?.close();
    if (dir) {
      const logs = await compose(dir, ['logs', '--no-color', '--tail=200']);
      await mkdir(path.join(REPO_ROOT, 'tmp/test-results'), { recursive: true });
      await writeFile(path.join(REPO_ROOT, 'tmp/test-results/stack.log'), logs.stdout + logs.stderr);
      await compose(dir, ['down', '-v', '--remove-orphans']);
      await rm(dir, { recursive: true, force: true });
    }
    await proxy?.stop();
  });

  test('starts on an empty database: migrations and seeding run once, the app turns healthy', async () => {
    upAt = Date.now();
    // returns once the app is seen healthy: the scheduler waits for that
    await composeOk(dir, ['up', '-d']);
    const upSeconds = (Date.now() - upAt) / 1000;
    await waitHealthy(10_000);
    const app = await containerOf(dir, 'app');
    assert.equal((await containerState(app)).health, 'healthy');

    const logs = await composeOk(dir, ['logs', '--no-color', 'app']);
    // the container's start to the server listening (health answers from then on): the start-up sequence
    const listening = /\{[^\n]*"msg":"Argus listening[^\n]*\}/.exec(logs);
    assert.ok(listening, logs);
    const listeningAt = Date.parse((JSON.parse(listening[0]) as { time: string }).time);
    const startedAt = Date.parse((await docker(['inspect', '-f', '{{.State.StartedAt}}', app])).stdout.trim());
    figure(
      `empty database → app listening ${((listeningAt - startedAt) / 1000).toFixed(1)} s after its container started; ` +
        `\`up -d\` (database initialised, app seen healthy) ${upSeconds.toFixed(0)} s`,
    );
    assert.equal(logs.match(/"msg":"Applied \d+ migration\(s\)"/g)?.length, 1, logs);
    assert.equal(logs.match(/"msg":"Seeded the default rules"/g)?.length, 1, logs);
    assert.equal(Number(await psql(dir, 'SELECT count(*) FROM knex_migrations')), await migrationFiles);
    assert.equal(await psql(dir, "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'"), '2.28.3');
    assert.equal(
      await psql(dir, "SELECT count(*) FROM timescaledb_information.hypertables WHERE hypertable_name = 'metrics'"),
      '1',
    );
    assert.equal(
      (await composeOk(dir, ['exec', '-T', 'app', 'node', '-p', 'process.env.NODE_ENV + " " + process.version']))
        .trim()
        .split(' ')[0],
      'production',
    );
    // test support stays out of the image (architecture.md)
    assert.deepEqual(await testCodeInApp(dir), []);
  });

  test('Chromium sets up the first account and signs in through nginx with TLS (Secure cookies)', async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${authUrl}/login`);
    await page.waitForURL(/\/setup$/);
    await createAdministrator(page, {
      name: 'Ada Admin',
      email: 'ada@example.com',
      username: 'ada',
      password: PASSWORD,
    });
    // the new administrator is signed in directly (the sign-in form is the end-to-end tests')
    await page.getByText('Argus services: all operational').waitFor();

    const cookies = await context.cookies(authUrl);
    assert.ok(cookies.length > 0, 'the sign-in set cookies');
    for (const cookie of cookies) {
      assert.equal(cookie.secure, true, `${cookie.name} is Secure`);
      assert.equal(cookie.httpOnly, true, `${cookie.name} is HttpOnly`);
      assert.equal(cookie.sameSite, 'Lax', `${cookie.name} is SameSite=Lax`);
    }
    await api.signIn('ada@example.com', PASSWORD);
  });

  test('an agent reports through nginx and its system turns ONLINE', async () => {
    const customer = await api.request('POST', '/api/customers', { name: 'Stack Ltd' });
    assert.equal(customer.status, 201, JSON.stringify(customer.body));
    const cluster = await api.request('POST', '/api/clusters', { customerId: customer.body.id, name: 'racks' });
    assert.equal(cluster.status, 201, JSON.stringify(cluster.body));
    enrollment = cluster.body.enrollmentKey;
    assert.ok(enrollment, 'the cluster has an enrollment key');

    const sim = spawn(
      path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
      [
        'ops/agent-sim/main.ts',
        '--url',
        authUrl,
        '--systems',
        '1',
        '--interval',
        '5',
        '--enrollment',
        enrollment,
        '--prefix',
        'stack',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, WEBHOOK_SECRET: SECRETS.WEBHOOK_SECRET, NODE_EXTRA_CA_CERTS: proxy.certFile },
        stdio: 'ignore',
      },
    );
    try {
      await waitFor(
        async () => {
          const systems = await api.request('GET', '/api/systems');
          return systems.status === 200 && systems.body.some((s: { status: string }) => s.status === 'ONLINE');
        },
        60_000,
        1000,
      );
    } finally {
      sim.kill('SIGTERM');
    }
  });

  test('ping checks run in the image as its unprivileged user: a container answers (UP), an unheld address not (DOWN)', async () => {
    const { up, down, redis, silent, settled } = await pingChecksInTheImage(dir, api);
    assert.equal(up.state, 'UP', `ping ${redis}: ${JSON.stringify(up.lastResult)}`);
    assert.equal(up.lastResult?.up, true);
    assert.equal(up.lastResult?.packetLossPct, 0);
    // a round trip on a bridge is well under a millisecond (tenths are kept: it may read 0)
    const roundTrip = up.lastResult?.responseMs;
    assert.ok(typeof roundTrip === 'number' && roundTrip >= 0 && roundTrip < 1000, `round trip ${roundTrip}`);
    assert.equal(down.state, 'DOWN', `ping ${silent}: ${JSON.stringify(down.lastResult)}`);
    assert.deepEqual([down.lastResult?.reason, down.lastResult?.packetLossPct], ['no reply', 100]);
    figure(
      `ping checks: UP after ${settled['up']?.toFixed(0)} s (${up.lastResult?.responseMs} ms), DOWN after ${settled['down']?.toFixed(0)} s`,
    );
  });

  test('the scheduler calls the evaluation endpoint within 150 s of the start', async () => {
    await waitFor(
      async () => /"success":true/.test(await composeOk(dir, ['logs', '--no-color', 'scheduler'])),
      Math.max(1000, upAt + 150_000 - Date.now()),
      2000,
    );
  });

  /** A simulated agent straight at the published port: it tells which reports the server accepted. */
  function directAgent(sub: string) {
    const agent = new SimulatedAgent({
      url: `http://127.0.0.1:${appPort}/api/webhook/metrics`,
      secret: SECRETS.WEBHOOK_SECRET,
      enrollment,
      sub,
      hostname: sub,
      seed: 7,
    });
    const pending: number[] = []; // samples of each collected, not yet accepted report, oldest first
    let acceptedSamples = 0;
    const results: SendResult[] = [];
    return {
      agent,
      results,
      get acceptedSamples() {
        return acceptedSamples;
      },
      /** Reports until the server has accepted one (30 s at most). */
      async untilAccepted(): Promise<void> {
        await waitFor(async () => (await this.tick(), acceptedSamples > 0), 30_000, 100);
      },
      async tick(): Promise<SendResult | null> {
        pending.push(agent.collect().metrics.length);
        const result = await agent.send();
        if (result) results.push(result);
        if (result?.status === 200) acceptedSamples += pending.splice(0, result.sent).reduce((a, b) => a + b, 0);
        return result;
      },
    };
  }

  async function storedSamples(hostname: string): Promise<number> {
    return Number(
      await psql(
        dir,
        `SELECT count(*) FROM metric_samples WHERE system_id = (SELECT id FROM systems WHERE hostname = '${hostname}')`,
      ),
    );
  }

  test('SIGTERM stops the app with exit code 0 and loses no accepted report', async () => {
    const direct = directAgent('sigterm-host');
    await direct.untilAccepted();
    const app = await containerOf(dir, 'app');
    const stopping = composeOk(dir, ['stop', 'app']);
    while ((await containerState(app)).status === 'running') {
      await direct.tick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stopping;
    assert.equal((await containerState(app)).exitCode, 0);
    const accepted = direct.acceptedSamples;
    const stored = await storedSamples('sigterm-host');
    assert.ok(stored >= accepted, `${stored} samples stored, ${accepted} accepted`);
    figure(
      `SIGTERM: ${direct.results.filter((r) => r.status === 200).length} reports accepted, ${stored}/${accepted} samples stored`,
    );
    await composeOk(dir, ['start', 'app']);
    await waitHealthy(60_000);
  });

  test('the database restarts under the running app: 503 with Retry-After, agents buffer, the app recovers', async () => {
    const direct = directAgent('outage-host');
    await direct.untilAccepted();
    await composeOk(dir, ['stop', 'database']);
    try {
      for (const route of ['/api/systems', '/api/auth/options']) {
        const reply = await api.request('GET', route);
        assert.equal(reply.status, 503, `${route}: ${JSON.stringify(reply.body)}`);
        assert.match(String(reply.headers['retry-after']), /^\d+$/, `${route} has Retry-After`);
      }
      const degraded = await health();
      assert.equal(degraded.status, 503);
      assert.notEqual(degraded.body.services.database, 'ok');
      const refused = await direct.tick();
      assert.equal(refused?.status, 503);
      assert.ok(direct.agent.buffered > 0, 'the agent keeps its reports');
    } finally {
      await composeOk(dir, ['start', 'database']);
    }
    await waitFor(async () => (await api.request('GET', '/api/systems')).status === 200, 60_000, 500);
    await waitHealthy(30_000);
    await waitFor(async () => (await direct.tick())?.status === 200 && direct.agent.buffered === 0, 30_000, 200);
    assert.equal(await storedSamples('outage-host'), direct.acceptedSamples);
    // the same process throughout, holding its instance lock again
    const app = await containerOf(dir, 'app');
    assert.equal((await docker(['inspect', '-f', '{{.RestartCount}}', app])).stdout.trim(), '0');
    await waitFor(
      async () => /Instance lock taken again/.test(await composeOk(dir, ['logs', '--no-color', 'app'])),
      20_000,
      1000,
    );
  });

  test('down and up again keeps every user, system and sample', async () => {
    const counts = async () =>
      psql(
        dir,
        'SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM systems), (SELECT count(*) FROM metrics), (SELECT count(*) FROM knex_migrations)',
      );
    const before = await counts();
    await composeOk(dir, ['down']);
    await composeOk(dir, ['up', '-d']);
    await waitHealthy(60_000);
    assert.equal(await counts(), before);
    const signedIn = await api.request('GET', '/api/systems');
    assert.equal(signedIn.status, 200, 'the session outlived the restart');
  });

  test('ops: db-usage.sql and reset-password in the containers, as README "Operations" says', async () => {
    const usage = await compose(dir, ['exec', '-T', 'database', 'psql', '-X', '-U', 'argus', '-d', 'argus'], {
      input: await readFile(path.join(dir, 'ops/db-usage.sql'), 'utf8'),
    });
    assert.equal(usage.code, 0, usage.stderr);
    assert.match(usage.stdout, /metrics/);

    const reset = await compose(
      dir,
      ['exec', '-T', 'app', 'npm', 'run', '--silent', 'reset-password', '--', 'ada@example.com'],
      {
        input: `${NEW_PASSWORD}\n`,
      },
    );
    assert.equal(reset.code, 0, reset.stdout + reset.stderr);
    await api.signIn('ada@example.com', NEW_PASSWORD);
  });

  test('ops: emergency-reclaim.sh plans, then applies: old samples go, the newest 48 h stay, the app starts again', async () => {
    await psql(
      dir,
      `INSERT INTO metrics (time, system_id, set_id, vals)
       SELECT now() - interval '5 days' - i * interval '1 minute', (SELECT id FROM systems WHERE hostname = 'outage-host'),
              metric_series_set_id(ARRAY['cpu.usage'], ARRAY['']), ARRAY[1]::real[]
       FROM generate_series(1, 600) AS i`,
    );
    const recent = "SELECT count(*) FROM metrics WHERE time >= now() - interval '47 hours'";
    const recentBefore = await psql(dir, recent);
    const env = dockerEnv();

    const plan = await runTool('bash', ['ops/emergency-reclaim.sh'], { cwd: dir, env, timeoutMs: 120_000 });
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /Nothing changed/);
    assert.equal(await psql(dir, "SELECT count(*) FROM metrics WHERE time < now() - interval '4 days'"), '600');

    const applied = await runTool('bash', ['ops/emergency-reclaim.sh', '--apply'], {
      cwd: dir,
      env,
      timeoutMs: 300_000,
    });
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.equal(await psql(dir, "SELECT count(*) FROM metrics WHERE time < now() - interval '4 days'"), '0');
    assert.equal(await psql(dir, recent), recentBefore);

    await composeOk(dir, ['up', '-d', 'app', 'scheduler']);
    await waitHealthy(60_000);
  });

  test('the app reports failing TimescaleDB jobs in its log and health a minute after it starts', async () => {
    // TimescaleDB 2.28.3's scheduler fails every run on this PostgreSQL 15.20 (vendor README); the
    // app (started again by the previous test) checks its jobs a minute after start
    await waitFor(async () => (await health()).body.storage?.troubledJobs?.length > 0, 120_000, 2000);
    const report = await health();
    assert.equal(report.status, 200, 'the app still works');
    const logs = await composeOk(dir, ['logs', '--no-color', 'app']);
    const line = logs.split('\n').find((l) => /"msg":"Storage job failing/.test(l));
    assert.ok(line, 'logged');
    figure(`storage job check: ${line.slice(line.indexOf('{'))}`);
  });
});
