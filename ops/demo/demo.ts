/**
 * `npm run demo`: Argus on a machine with nothing but Node. Starts the embedded
 * TimescaleDB (WASM, data under .demo/), runs the start-up sequence with
 * `--demo`, serves on http://127.0.0.1:3000 on the in-memory bus, starts
 * simulated agents for the sample fleet and the real argus-agent (from source)
 * for the machine it runs on, and plays the scheduler: once a minute it calls the
 * evaluation endpoint and runs the TimescaleDB jobs the WASM build never runs
 * by itself. It also serves an agent build for this machine's architecture (built
 * once in the background, kept under .demo/agent-dist/), so the console's
 * install command works against the demo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildAgent } from '../../agent/build/build-agent.js';
import agentPackage from '../../agent/package.json' with { type: 'json' };
import { startEmbeddedTimescale, type EmbeddedDb } from '../../db/embedded.js';
import { createLogger } from '../../db/logger.js';
import pg from 'pg';
import { prettyLine } from './pretty-log.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// node with tsx's loader, not the tsx CLI: its signal relay SIGKILLs a child that is slow to acknowledge
// Ctrl+C (seen under load), which would cut the server's and the embedded database's clean shutdown
const NODE_ARGS = ['--import', 'tsx'];
const DEMO_DIR = path.resolve(ROOT, process.env['ARGUS_DEMO_DIR'] ?? '.demo');
const PORT = Number(process.env['PORT'] ?? 3000);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const STATIC_DIR = path.resolve(ROOT, process.env['STATIC_DIR'] ?? 'dist/frontend/browser');
const MINUTE = 60_000;
/** Agent builds the demo serves (AGENT_DIST_DIR): this machine's architecture, built once. */
const AGENT_DIST_DIR = path.join(DEMO_DIR, 'agent-dist');
const AGENT_ARCH = ({ x64: 'x86_64', arm64: 'aarch64' } as const)[os.arch() as 'x64' | 'arm64'];

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** Secrets are generated once and kept under .demo/, so sessions survive a demo restart. */
async function demoSecrets(): Promise<Record<string, string>> {
  const file = path.join(DEMO_DIR, 'secrets.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  const secret = () => randomBytes(32).toString('base64url');
  const secrets = {
    AUTH_SECRET: secret(),
    WEBHOOK_SECRET: secret(),
    SETTINGS_ENCRYPTION_KEY: secret(),
    CRON_SECRET: secret(),
  };
  await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** One demo per .demo directory: the embedded database must not be opened twice. */
async function claimPidFile(): Promise<string> {
  const file = path.join(DEMO_DIR, 'demo.pid');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    try {
      if (pid) process.kill(pid, 0);
      if (pid) throw new Error(`A demo is already running (pid ${pid}). Stop it first, or remove ${file}.`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  await writeFile(file, String(process.pid));
  return file;
}

function run(label: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => say(prettyLine(line, label)));
  }
  return child;
}

function finished(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

async function buildConsoleIfMissing(): Promise<void> {
  if (existsSync(path.join(STATIC_DIR, 'index.html'))) return;
  say('Building the console (first run only, about a minute)…');
  const build = spawn(path.join(ROOT, 'node_modules/.bin/ng'), ['build'], { cwd: ROOT, stdio: 'inherit' });
  if ((await finished(build)) !== 0) throw new Error('The console build failed (npm run build:frontend)');
}

async function waitForHealth(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${BASE_URL}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Argus did not answer ${BASE_URL}/api/health within ${timeoutMs / 1000} s`);
}

/** The address of the demo's published status page (db/demo-data.ts), or null when there is none. */
async function publishedStatusPage(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ slug: string }>('SELECT slug FROM status_pages ORDER BY id LIMIT 1');
    return rows[0] ? `/status/${rows[0].slug}` : null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The scheduler's job, plus the TimescaleDB jobs (rollup refresh, compression, retention). */
async function minuteTick(db: EmbeddedDb, cronSecret: string, log: ReturnType<typeof createLogger>): Promise<void> {
  try {
    const response = await fetch(`${BASE_URL}/api/cron/evaluate-alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cronSecret}` },
    });
    // 404 until the evaluation endpoint exists in this build
    if (!response.ok && response.status !== 404) log.warn({ status: response.status }, 'Evaluation call failed');
  } catch (error) {
    log.warn({ err: { message: (error as Error).message } }, 'Evaluation call failed');
  }
  const ran = await db.runDueJobs();
  if (ran) log.debug({ ran }, 'Ran TimescaleDB jobs');
}

/**
 * Fleet systems bound to an agent key the demo no longer holds (a demo directory from before the keys
 * were kept, or fleet-keys.json deleted) are re-enrolled, as an admin's "re-enroll" does: their agents
 * enrol again with their cluster's key instead of being refused (401) for good.
 */
async function reenrollLostKeys(client: pg.Client, subs: string[], keysFile: string): Promise<void> {
  const kept = existsSync(keysFile) ? Object.keys(JSON.parse(await readFile(keysFile, 'utf8')) as object) : [];
  await client.query(
    'UPDATE systems SET agent_key_hash = NULL, updated_at = now() WHERE agent_id = ANY($1) AND agent_key_hash IS NOT NULL',
    [subs.filter((sub) => !kept.includes(sub))],
  );
}

/**
 * Simulated agents (ops/agent-sim): one for each host of the sample fleet, so it keeps
 * reporting instead of going offline two minutes in (each re-enrolls with its own
 * cluster's key), and three new hosts enrolled in the first cluster.
 */
async function startSimulatedAgents(databaseUrl: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  // the agent keys the server gave: without them a restarted demo's agents would be refused (401)
  const keysFile = path.join(DEMO_DIR, 'fleet-keys.json');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let fleet: { sub: string; hostname: string; enrollment: string }[];
  try {
    const sample = await client.query<{ agent_id: string; hostname: string; enrollment_key: string }>(
      `SELECT s.agent_id, s.hostname, k.enrollment_key FROM systems s JOIN clusters k ON k.id = s.cluster_id
        WHERE s.agent_id LIKE 'demo-%' AND s.agent_id NOT LIKE 'demo-sim-%' ORDER BY s.id`,
    );
    const first = await client.query<{ enrollment_key: string }>(
      'SELECT enrollment_key FROM clusters ORDER BY id LIMIT 1',
    );
    const key = first.rows[0]?.enrollment_key;
    if (!key) throw new Error('no cluster to enroll simulated agents in');
    fleet = [
      ...sample.rows.map((r) => ({ sub: r.agent_id, hostname: r.hostname, enrollment: r.enrollment_key })),
      ...[1, 2, 3].map((n) => ({
        sub: `demo-sim-${String(n).padStart(4, '0')}`,
        hostname: `demo-sim-host-${n}`,
        enrollment: key,
      })),
    ];
    await reenrollLostKeys(
      client,
      fleet.map((host) => host.sub),
      keysFile,
    );
  } finally {
    await client.end();
  }
  const fleetFile = path.join(DEMO_DIR, 'fleet-agents.json');
  await writeFile(fleetFile, JSON.stringify(fleet), { mode: 0o600 });
  // a fault now and then (CPU spike, disk filling, going offline, …) so the alerts page has something to show
  const faults = process.env['ARGUS_DEMO_FAULTS'] ?? '0.2';
  const args = ['--url', BASE_URL, '--fleet', fleetFile, '--keys', keysFile, '--interval', '30', '--faults', faults];
  return run('agents', 'ops/agent-sim/main.ts', args, env);
}

/**
 * The agent build for this machine's architecture, as `npm run build:agent` makes it, unless the
 * kept one is this agent version's: started after the server listens (it takes about 30 s and
 * nothing waits for it), and picked up by the server's rescan of AGENT_DIST_DIR (every 30 s).
 * A build stopped halfway has no manifest yet, so the server ignores it and the next start builds again.
 */
async function buildAgentIfMissing(log: ReturnType<typeof createLogger>): Promise<void> {
  if (!AGENT_ARCH) {
    log.warn({ arch: os.arch() }, 'No agent build for this architecture: the install command will not work');
    return;
  }
  const manifest = path.join(AGENT_DIST_DIR, agentPackage.version, 'manifest.json');
  const kept = existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).files?.[AGENT_ARCH];
  if (kept) return;
  say(`Building argus-agent ${agentPackage.version} for ${AGENT_ARCH} in the background (first run only)…`);
  await buildAgent({ outDir: AGENT_DIST_DIR, arches: [AGENT_ARCH] });
  say('The agent build is ready: the install command in Customers works against the demo within 30 s.');
}

/** The cluster the real agent enrols this machine in, under the first sample customer. */
const THIS_MACHINE = 'This machine';

/**
 * The real argus-agent for the machine the demo runs on, run from source by node
 * with tsx's loader like the server, so the demo needs no single-executable build: its own cluster
 * "This machine", a config.yaml as the installer writes it, its state under .demo/agent/.
 */
async function startThisMachine(databaseUrl: string, webhookSecret: string, env: NodeJS.ProcessEnv) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let key: string | undefined;
  try {
    const found = await client.query<{ enrollment_key: string }>(
      'SELECT enrollment_key FROM clusters WHERE name = $1 ORDER BY id LIMIT 1',
      [THIS_MACHINE],
    );
    key = found.rows[0]?.enrollment_key;
    if (!key) {
      const created = await client.query<{ enrollment_key: string }>(
        `INSERT INTO clusters (customer_id, name, enrollment_key)
           SELECT id, $1, $2 FROM customers ORDER BY id LIMIT 1 RETURNING enrollment_key`,
        [THIS_MACHINE, randomBytes(24).toString('base64url')],
      );
      key = created.rows[0]?.enrollment_key;
    }
  } finally {
    await client.end();
  }
  if (!key) throw new Error('no customer to put this machine under');
  const stateDir = path.join(DEMO_DIR, 'agent');
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const config = path.join(stateDir, 'config.yaml');
  const quoted = (value: string) => JSON.stringify(value);
  await writeFile(
    config,
    [
      `webhook_url: ${quoted(`${BASE_URL}/api/webhook/metrics`)}`,
      `webhook_secret: ${quoted(webhookSecret)}`,
      `enrollment: ${quoted(key)}`,
      `state_dir: ${quoted(stateDir)}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // the agent needs none of the server's secrets in its environment
  const { PATH, HOME, LANG, TZ } = env;
  return run('agent', 'agent/src/main.ts', ['run', '--config', config], { PATH, HOME, LANG, TZ });
}

async function main(): Promise<void> {
  await mkdir(DEMO_DIR, { recursive: true });
  const pidFile = await claimPidFile();
  const log = createLogger({
    name: 'argus-demo',
    level: process.env['LOG_LEVEL'] ?? 'info',
    destination: { write: (line: string) => say(prettyLine(line.trimEnd(), 'demo')) },
  });
  await buildConsoleIfMissing();

  say('Starting the embedded TimescaleDB (WASM)…');
  const db = await startEmbeddedTimescale({ dataDir: path.join(DEMO_DIR, 'pgdata'), log });
  const secrets = await demoSecrets();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...secrets,
    DATABASE_URL: db.url,
    // the embedded database serves one transaction at a time
    DATABASE_POOL_MAX: '1',
    REDIS_URL: 'memory://',
    AUTH_URL: BASE_URL,
    PUBLIC_URL: BASE_URL,
    PORT: String(PORT),
    HOSTNAME: '127.0.0.1',
    NODE_ENV: 'development',
    STATIC_DIR,
    AGENT_DIST_DIR,
  };

  let server: ChildProcess | null = null;
  let simulator: ChildProcess | null = null;
  let agent: ChildProcess | null = null;
  let timer: NodeJS.Timeout | undefined = undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    for (const child of [agent, simulator]) {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await finished(child);
      }
    }
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await finished(server);
    }
    await db.close();
    await rm(pidFile, { force: true });
    process.exit(code);
  };
  // `on`, not `once`: a second Ctrl+C must not kill us mid-cleanup
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    if ((await finished(run('migrate', 'db/migrate.ts', [], env))) !== 0) throw new Error('Migrations failed');
    if ((await finished(run('seed', 'db/seed.ts', ['--demo'], env))) !== 0) throw new Error('Seeding failed');
    server = run('server', 'backend/src/main.ts', [], env);
    server.once('exit', (code) => {
      if (!stopping) {
        say(`The server stopped (exit ${code}).`);
        void stop(1);
      }
    });
    await waitForHealth(60_000);
  } catch (error) {
    say(`Demo failed: ${(error as Error).message}`);
    await stop(1);
    return;
  }

  // a few simulated hosts report every 30 s into the first cluster, so the console is alive
  try {
    simulator = await startSimulatedAgents(db.url, env);
  } catch (error) {
    log.warn({ err: { message: (error as Error).message } }, 'Simulated agents did not start');
  }
  try {
    agent = await startThisMachine(db.url, secrets['WEBHOOK_SECRET'] ?? '', env);
  } catch (error) {
    log.warn({ err: { message: (error as Error).message } }, 'The agent for this machine did not start');
  }

  // Like the real scheduler, the first call comes after a minute. The rollups are real-time, so
  // charts are complete before the first refresh job materialises them.
  timer = setInterval(() => void minuteTick(db, secrets['CRON_SECRET'] ?? '', log), MINUTE);
  buildAgentIfMissing(log).catch((error: unknown) =>
    log.warn(
      { err: { message: (error as Error).message } },
      'The agent build failed: the install command will not work',
    ),
  );
  say('');
  say(`  Argus demo is running: open ${BASE_URL}`);
  const statusPage = await publishedStatusPage(db.url);
  if (statusPage) say(`  A customer's status page, no sign-in (try a private window): ${BASE_URL}${statusPage}`);
  say(`  This machine (${os.hostname()}) reports with the real argus-agent, in the cluster "${THIS_MACHINE}".`);
  const shown = path.relative(ROOT, DEMO_DIR).startsWith('..') ? DEMO_DIR : path.relative(ROOT, DEMO_DIR);
  say(`  Data and generated secrets live in ${shown}/ (delete it to start over).`);
  say('  Press Ctrl+C to stop.');
  say('');
}

await main();
