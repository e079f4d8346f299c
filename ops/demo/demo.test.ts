import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, waitFor } from '../../backend/src/testing/net.js';
import { Client } from '../../backend/src/testing/http.js';
import { startScript } from '../../backend/src/testing/script.js';
import agentPackage from '../../agent/package.json' with { type: 'json' };

const ADMIN = { name: 'Demo Admin', email: 'admin@demo.example', password: 'a demo password long enough' };

/**
 * The real argus-agent's system (this machine, in the cluster "This machine"), seen through the API as
 * a user sees it, with values that can only come from this machine: its uptime and its core count.
 */
async function thisMachine(url: string): Promise<{ id: number; hostname: string }> {
  const client = new Client(url);
  // the first run creates the administrator; the second finds it there
  await client.post('/api/setup', ADMIN);
  assert.equal((await client.signIn(ADMIN.email, ADMIN.password)).status, 200);
  let mine: { id: number; hostname: string; status: string; agentVersion: string; cluster: { name: string } }[] = [];
  await waitFor(
    async () => {
      const systems = await client.get('/api/systems');
      mine = (systems.body as typeof mine).filter((system) => system.cluster?.name === 'This machine');
      return mine.length > 0 && mine[0]?.status === 'ONLINE';
    },
    60_000,
    500,
  );
  assert.equal(mine.length, 1, 'one system for this machine');
  const system = mine[0]!;
  assert.equal(system.hostname, os.hostname());
  assert.equal(system.agentVersion, agentPackage.version);
  const detail = await client.get(`/api/systems/${system.id}`);
  assert.equal(detail.body.cores, os.cpus().length);
  const latest = async (name: string) => {
    const chart = await client.get(`/api/systems/${system.id}/metrics?name=${name}`);
    assert.equal(chart.status, 200, name);
    const points = chart.body.points as [number, number, number, number][];
    assert.ok(points.length > 0, `${name} has values`);
    return points.at(-1)![1];
  };
  const uptime = await latest('uptime.s');
  assert.ok(Math.abs(uptime - os.uptime()) < 600, `uptime ${uptime} s is this machine's (${os.uptime()} s)`);
  const memory = await latest('mem.used_pct');
  assert.ok(memory > 0 && memory < 100, `memory ${memory} %`);
  assert.ok((await latest('cpu.usage_pct')) >= 0);
  return system;
}

/**
 * After a restart, every simulated agent's reports are accepted again at once (its agent key kept under
 * the demo directory): each system of the sample fleet reports after `since` and stays ONLINE, and the
 * scheduler's evaluation, called now rather than after its minute, raises nothing new.
 */
async function fleetReportsOn(url: string, demoDir: string, since: number): Promise<void> {
  const client = new Client(url);
  assert.equal((await client.signIn(ADMIN.email, ADMIN.password)).status, 200);
  type Listed = { hostname: string; status: string; lastSeenAt: string | null; cluster: { name: string } | null };
  let fleet: Listed[] = [];
  const reportedAgain = (system: Listed) => system.status === 'ONLINE' && Date.parse(system.lastSeenAt ?? '') >= since;
  await waitFor(
    async () => {
      const systems = (await client.get('/api/systems')).body as Listed[];
      fleet = systems.filter((system) => system.cluster?.name !== 'This machine');
      return fleet.length === 10 && fleet.every(reportedAgain);
    },
    60_000,
    1000,
  ).catch(() => assert.fail(`not every simulated agent reported after the restart: ${JSON.stringify(fleet)}`));
  const { CRON_SECRET } = JSON.parse(await readFile(path.join(demoDir, 'secrets.json'), 'utf8')) as Record<
    string,
    string
  >;
  const evaluation = await fetch(`${url}/api/cron/evaluate-alerts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  assert.equal(evaluation.status, 200);
  const alerts = (await client.get('/api/alerts?state=open')).body as { message: string; startedAt: string }[];
  assert.deepEqual(
    alerts.filter((alert) => Date.parse(alert.startedAt) >= since).map((alert) => alert.message),
    [],
    'no alert raised after the restart',
  );
  assert.equal((await client.get('/api/systems')).body.filter((s: Listed) => s.status === 'OFFLINE').length, 0);
}

const ARCH = os.arch() === 'arm64' ? 'aarch64' : 'x86_64';

/** The agent build the demo made on its first run, served at once on the second, as the installer fetches it. */
async function agentBuildServed(url: string): Promise<void> {
  const version = await fetch(`${url}/api/agent/version?arch=${ARCH}`);
  assert.equal(version.status, 200, 'the installer finds an agent build');
  const offer = (await version.json()) as { version: string; url: string; sha256: string };
  assert.equal(offer.version, agentPackage.version);
  const binary = Buffer.from(await (await fetch(offer.url)).arrayBuffer());
  assert.equal(createHash('sha256').update(binary).digest('hex'), offer.sha256);
  assert.equal(binary.subarray(1, 4).toString(), 'ELF');
}

describe('npm run demo', () => {
  let demoDir: string;
  let consoleDir: string;
  before(async () => {
    demoDir = await mkdtemp(path.join(os.tmpdir(), 'argus-demo-'));
    consoleDir = await mkdtemp(path.join(os.tmpdir(), 'argus-demo-console-'));
    // a stand-in console build, so the test does not spend a minute in `ng build`
    await writeFile(path.join(consoleDir, 'index.html'), '<!doctype html><title>Argus</title><app-root></app-root>');
  });
  after(async () => {
    await rm(demoDir, { recursive: true, force: true });
    await rm(consoleDir, { recursive: true, force: true });
  });

  let machine: { id: number } | undefined;

  async function runDemoOnce(
    afterStart: (url: string, startedAt: number, output: () => string) => Promise<void>,
  ): Promise<string> {
    const port = await freePort();
    const startedAt = Date.now();
    const demo = startScript('ops/demo/demo.ts', [], {
      ARGUS_DEMO_DIR: demoDir,
      STATIC_DIR: consoleDir,
      PORT: String(port),
      // every agent gets a fault, but only ten minutes in: a (re)started fleet comes up healthy, so its
      // agents enrol, report on and raise no alert (faults at the start had a skewed clock's agent refused
      // with 401 and an offline one silent, as if the restart had broken them)
      ARGUS_DEMO_FAULTS: '1',
    });
    try {
      let health: Record<string, unknown> = {};
      await waitFor(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/api/health`);
          health = (await response.json()) as Record<string, unknown>;
          return response.status === 200;
        },
        120_000,
        250,
      );
      assert.deepEqual(health['services'], { database: 'ok', redis: 'ok' });
      assert.match(await (await fetch(`http://127.0.0.1:${port}/systems`)).text(), /<app-root>/);
      await waitFor(() => demo.output().includes('Argus demo is running'), 10_000);
      await waitFor(() => demo.output().includes('Simulating 10 agents'), 20_000);
      assert.match(demo.output(), new RegExp(`open http://127\\.0\\.0\\.1:${port}`));
      // the seeded customer status page opens without signing in, and sets no cookie
      const statusPath = /status page.*?(\/status\/[A-Za-z0-9_-]{24})/.exec(demo.output())?.[1];
      assert.ok(statusPath, 'the demo prints the status page address');
      const statusPage = await fetch(`http://127.0.0.1:${port}${statusPath}`);
      assert.equal(statusPage.status, 200);
      assert.deepEqual(statusPage.headers.getSetCookie(), []);
      assert.match(await statusPage.text(), /Shipment tracking/);
      // the real agent for this machine, beside the simulated fleet; the same system on the second run
      const system = await thisMachine(`http://127.0.0.1:${port}`);
      assert.equal(system.id, (machine ??= system).id);
      await afterStart(`http://127.0.0.1:${port}`, startedAt, () => demo.output());
      demo.kill('SIGINT'); // to the whole group, like Ctrl+C in a terminal
      assert.equal(await demo.exited, 0, demo.output());
      return demo.output();
    } finally {
      demo.kill('SIGKILL');
    }
  }

  it('starts on the embedded TimescaleDB, answers health, serves the console and stops cleanly', async () => {
    // the agent build for this machine, made in the background while the demo runs (kept for the next run)
    const output = await runDemoOnce(async (_url, _startedAt, demoOutput) => {
      await waitFor(() => demoOutput().includes('The agent build is ready'), 180_000, 500);
      // every simulated agent has enrolled and kept its key (they start spread over their 30 s)
      const keysFile = path.join(demoDir, 'fleet-keys.json');
      await waitFor(async () => Object.keys(JSON.parse(await readFile(keysFile, 'utf8'))).length === 10, 60_000, 500);
    });
    assert.match(output, /metrics is now a hypertable/);
    assert.match(output, /Added the demo fleet/);
    // one agent for each of the 7 sample hosts (so they keep reporting) and 3 new hosts
    assert.match(output, /Simulating 10 agents/, 'the simulated agents run');
    assert.equal(existsSync(path.join(demoDir, 'demo.pid')), false, 'the pid file is removed on exit');
    const secrets = await stat(path.join(demoDir, 'secrets.json'));
    assert.equal(secrets.mode & 0o077, 0, 'generated secrets are readable by the owner only');
  });

  it('starts again on the kept data without adding the demo fleet twice, its agents reporting on', async () => {
    // every agent kept its key; one key is lost (as in a demo directory from before they were kept)
    const keysFile = path.join(demoDir, 'fleet-keys.json');
    const keys = JSON.parse(await readFile(keysFile, 'utf8')) as Record<string, string>;
    assert.equal(Object.keys(keys).length, 10, 'the key of every simulated agent is kept');
    assert.equal((await stat(keysFile)).mode & 0o077, 0, 'readable by the owner only');
    const [lost, ...kept] = Object.keys(keys) as [string, ...string[]];
    await writeFile(keysFile, JSON.stringify(Object.fromEntries(kept.map((sub) => [sub, keys[sub]]))));
    const output = await runDemoOnce(async (url, startedAt, demoOutput) => {
      await agentBuildServed(url);
      await fleetReportsOn(url, demoDir, startedAt);
      // the simulator's status line: every answer a 200, no fault yet
      await waitFor(() => /answers 200:\d+; buffered \d+; faults none/.test(demoOutput()), 45_000, 500);
    });
    assert.doesNotMatch(output, /answers [^;]*\b(401|error):/, 'no report refused or failed after the restart');
    const after = JSON.parse(await readFile(keysFile, 'utf8')) as Record<string, string>;
    for (const sub of kept) assert.equal(after[sub], keys[sub], `${sub} reported with its kept key`);
    assert.ok(after[lost] && after[lost] !== keys[lost], `${lost} enrolled again, with a new key`);
    assert.match(output, /Demo fleet already present/);
    assert.match(output, /Schema is up to date/);
  });
});
