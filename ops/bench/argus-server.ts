/**
 * The real Argus server for benchmarks: what `npm start` runs (db/migrate.ts,
 * db/seed.ts, then backend/src/main.ts), NODE_ENV=production, its own
 * configuration from the environment, on a fresh empty PostgreSQL database and
 * the machine's Redis. Nothing of the app is rebuilt or reduced here: the bench
 * only adds customers and clusters (enrolment keys) with SQL, and reads the
 * server's own /api/metrics (METRICS_TOKEN) for the group-commit figures.
 *
 * `checkout` runs another checkout's server the same way (`bench ingest
 * --baseline DIR`: the code before a change, measured alternately with it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_URL, databaseUrl } from '../../backend/src/testing/database.js';
import { childPids, statFields, USER_HZ } from './proc-stat.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const THIS_CHECKOUT = path.resolve(HERE, '../..');

export interface ArgusServerOptions {
  /** A checkout of Argus (default: this one). */
  checkout?: string;
  /** Clusters to create, one enrolment key each (the per-cluster limit counts new systems per hour). */
  clusters: number;
  /** Extra node flags for the server process (e.g. --cpu-prof --cpu-prof-dir=DIR). */
  nodeArgs?: string[];
  /** Extra environment (e.g. a lever's switch). */
  env?: Record<string, string>;
  /**
   * Processes serving HTTP (default 1): more runs the checkout's server under cluster-server.ts, to
   * measure what several processes would give (the singletons are not shared out there).
   */
  processes?: number;
}

/** Cumulative figures of the server at one moment; phases take differences. */
export interface ServerSnapshot {
  /** CPU seconds of the server process (user + system, all its threads). */
  cpuSeconds: number;
  /** CPU seconds of its main thread alone (the event loop; the rest is the thread pool, GC helpers, JIT). */
  mainThreadCpuSeconds: number;
  /** CPU seconds of the PostgreSQL backends serving this server's database. */
  dbCpuSeconds: number;
  /** Event-loop time (ms): active and idle, from performance.eventLoopUtilization(). */
  loopActiveMs: number;
  loopIdleMs: number;
  statements: number;
  requests: number;
  samples: number;
  statementSeconds: number;
  rss: number;
  heapUsed: number;
  /** Samples handed to the group commit and not yet answered (admission's depth), now. */
  pendingSamples: number;
  /** The depth above which replays are slowed now (0 from a server without the gauge). */
  pendingLimit: number;
}

/** utime + stime of a process (or, with `tid`, of one of its threads) in seconds (0 when it is gone). */
export function processCpuSeconds(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = statFields(stat);
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return 0;
  }
}

/** CPU seconds of `pid` and the processes it started (all threads, or with `mainThreads` their main threads alone). */
export function processTreeCpuSeconds(pid: number, mainThreads = false): number {
  const own = processCpuSeconds(pid, mainThreads ? pid : undefined);
  return childPids(pid).reduce((total, child) => total + processTreeCpuSeconds(child, mainThreads), own);
}

/** The loop probe's figures: each cluster worker's file summed when there are any, else the process's own. */
export function readLoop(loopFile: string): { active: number; idle: number } {
  const read = (file: string) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as { active: number; idle: number };
    } catch {
      return null;
    }
  };
  const workers = readdirSync(path.dirname(loopFile))
    .filter((name) => name.startsWith(`${path.basename(loopFile)}.`))
    .map((name) => read(path.join(path.dirname(loopFile), name)))
    .filter((loop) => loop !== null);
  const loops = workers.length ? workers : [read(loopFile) ?? { active: 0, idle: 0 }];
  return loops.reduce((sum, loop) => ({ active: sum.active + loop.active, idle: sum.idle + loop.idle }), {
    active: 0,
    idle: 0,
  });
}

/** CPU seconds of every backend now connected to `database`, by pid (backends live as long as the pool). */
export async function backendCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const result = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return new Map(result.rows.map((row) => [row.pid, processCpuSeconds(row.pid)]));
}

/** Seconds the backends of `after` spent since `before` (a backend new since then counts from 0). */
export function backendCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function run(command: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command.join(' ')} exited ${code}`))));
  });
}

/** A server's error line, short: its message and its error's (not the stack). */
function serverError(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
    return `server error: ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message})` : ''}`;
  } catch {
    return line.slice(0, 300);
  }
}

export async function startArgusServer(options: ArgusServerOptions) {
  const database = `argus_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${database}" TEMPLATE template0`);
  try {
    return await startOn(database, options);
  } catch (error) {
    await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    throw error;
  }
}

async function startOn(database: string, options: ArgusServerOptions) {
  const checkout = path.resolve(options.checkout ?? THIS_CHECKOUT);
  const url = databaseUrl(database);
  const secret = randomBytes(32).toString('hex');
  const metricsToken = randomBytes(32).toString('hex');
  const loopFile = path.join(os.tmpdir(), `${database}.loop.json`);
  // Redis: the app's prefix is fixed ("argus:"), so a database of its own keeps its rate-limit keys
  // (by system id, which starts at 1 in every fresh database) apart from other servers on this Redis
  const redisDb = 1 + ((randomBytes(1)[0] as number) % 15);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'production',
    DATABASE_URL: url,
    REDIS_URL: `redis://127.0.0.1:6379/${redisDb}`,
    PORT: '0',
    HOSTNAME: '127.0.0.1',
    AUTH_SECRET: randomBytes(32).toString('hex'),
    AUTH_URL: 'http://127.0.0.1',
    WEBHOOK_SECRET: secret,
    SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CRON_SECRET: randomBytes(32).toString('hex'),
    METRICS_TOKEN: metricsToken,
    AGENT_DIST_DIR: path.join(os.tmpdir(), `${database}-agent-dist`),
    BENCH_LOOP_FILE: loopFile,
    ...options.env,
  };
  // npm start's steps, in order, from the checkout
  await run(['--import', 'tsx', 'db/migrate.ts'], checkout, env);
  await run(['--import', 'tsx', 'db/seed.ts'], checkout, env);

  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const customer = await admin.query<{ id: number }>("INSERT INTO customers (name) VALUES ('Bench') RETURNING id");
  const enrollmentKeys: string[] = [];
  for (let i = 0; i < options.clusters; i++) {
    const key = randomBytes(16).toString('hex');
    await admin.query('INSERT INTO clusters (customer_id, name, enrollment_key) VALUES ($1, $2, $3)', [
      customer.rows[0]?.id,
      `bench-${i}`,
      key,
    ]);
    enrollmentKeys.push(key);
  }

  const processes = options.processes ?? 1;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      '--import',
      'tsx',
      // the event-loop probe: one small file write a second, nothing else (see loop-probe.ts)
      '--import',
      path.join(HERE, 'loop-probe.ts'),
      processes > 1 ? path.join(HERE, 'cluster-server.ts') : 'backend/src/main.ts',
    ],
    {
      cwd: checkout,
      env: processes > 1 ? { ...env, ARGUS_PROCESSES: String(processes) } : env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Argus exited (${code}) before listening`)));
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      // the server's errors are shown (the rest of its log is not the bench's output)
      if (/^\{"level":[56]0,/.test(line)) console.error(serverError(line));
      if (!line.includes('Argus listening')) return;
      resolve((JSON.parse(line) as { port: number }).port);
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const pid = child.pid as number;

  return {
    url: base,
    secret,
    database,
    databaseUrl: url,
    enrollmentKeys,
    pid,
    async snapshot(): Promise<{ at: ServerSnapshot; backends: Map<number, number> }> {
      const read = async () =>
        (await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
      // a kept-alive connection the server closed at its idle timeout as the request went out: once more
      const text = await read().catch(read);
      const loop = readLoop(loopFile);
      const backends = await backendCpu(admin, database);
      return {
        backends,
        at: {
          cpuSeconds: processTreeCpuSeconds(pid),
          mainThreadCpuSeconds: processTreeCpuSeconds(pid, true),
          dbCpuSeconds: 0,
          loopActiveMs: loop.active,
          loopIdleMs: loop.idle,
          statements: metricValue(text, 'argus_ingest_statement_seconds_count'),
          statementSeconds: metricValue(text, 'argus_ingest_statement_seconds_sum'),
          requests: metricValue(text, 'argus_ingest_batch_requests_sum'),
          samples: metricValue(text, 'argus_ingest_batch_samples_sum'),
          rss: metricValue(text, 'process_resident_memory_bytes'),
          heapUsed: metricValue(text, 'nodejs_heap_size_used_bytes'),
          pendingSamples: metricValue(text, 'argus_ingest_pending_samples'),
          pendingLimit: metricValue(text, 'argus_ingest_pending_limit_samples'),
        },
      };
    },
    /** Samples stored in `metrics`. */
    async storedSamples(): Promise<number> {
      const result = await admin.query<{ rows: string }>(
        'SELECT coalesce(sum(cardinality(vals)), 0) AS rows FROM metrics',
      );
      return Number(result.rows[0]?.rows ?? 0);
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      await admin.end();
      for (const name of readdirSync(path.dirname(loopFile)))
        if (name.startsWith(path.basename(loopFile))) rmSync(path.join(path.dirname(loopFile), name), { force: true });
      rmSync(env['AGENT_DIST_DIR'] as string, { recursive: true, force: true });
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
}

export type ArgusServer = Awaited<ReturnType<typeof startArgusServer>>;
