/**
 * `bench ingest --processes N`: a checkout's server with its HTTP serving in N processes
 * (node:cluster; the primary accepts and hands each connection to a worker in turn), to measure
 * what several processes would give before the server supports them. Each worker runs the
 * checkout's own `startServer` (backend/src/main.ts); the first takes the instance lock, the others
 * start without it. For measuring only: every worker also runs its own housekeeping, check runner
 * and live hub, and has its own group commit, caches, admission and report-limit lease, which a
 * server in several processes must not (docs/decisions.md "Ingest: the server in two processes").
 *
 * argus-server.ts starts it with the checkout as its working directory and ARGUS_PROCESSES set;
 * the processes split DATABASE_POOL_MAX (default 20) between them.
 * "Argus listening" is written once every worker listens, so no connection is made before the
 * last one can take its share; the workers' other log lines pass through.
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

interface CheckoutModules {
  startServer(
    config: unknown,
    log: unknown,
    options: { instanceLock: boolean },
  ): Promise<{ stop(): Promise<void> } | null>;
  loadConfig(env: NodeJS.ProcessEnv): unknown;
  createLogger(): unknown;
}

const processes = Number(process.env['ARGUS_PROCESSES'] ?? 2);

/** A module of the checkout being measured (the working directory), not of this one. */
const fromCheckout = (file: string): Promise<Record<string, unknown>> =>
  import(pathToFileURL(path.join(process.cwd(), file)).href) as Promise<Record<string, unknown>>;

async function checkoutModules(): Promise<CheckoutModules> {
  const [main, config, logger] = await Promise.all([
    fromCheckout('backend/src/main.ts'),
    fromCheckout('backend/src/config.ts'),
    fromCheckout('backend/src/lib/logger.ts'),
  ]);
  return { ...main, ...config, ...logger } as unknown as CheckoutModules;
}

/** Passes a worker's log through, all but its own "Argus listening" (the primary says it once for all). */
function forwardOutput(worker: Worker): void {
  const lines = readline.createInterface({ input: worker.process.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    if (!line.includes('Argus listening')) console.log(line);
  });
  worker.process.stderr?.pipe(process.stderr);
}

function runPrimary(): void {
  cluster.setupPrimary({ silent: true });
  let stopping = false;
  let listening = 0;
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  // the processes share one server's connection budget (PostgreSQL's max_connections is shared too)
  const poolMax = String(Math.max(2, Math.ceil(Number(process.env['DATABASE_POOL_MAX'] ?? 20) / processes)));
  for (let index = 0; index < processes; index++)
    forwardOutput(cluster.fork({ ARGUS_PROCESS_INDEX: String(index), DATABASE_POOL_MAX: poolMax }));
  cluster.on('listening', (_worker, address) => {
    listening++;
    if (listening === processes)
      console.log(JSON.stringify({ level: 30, port: address.port, msg: `Argus listening in ${processes} processes` }));
  });
  let exited = 0;
  cluster.on('exit', (worker, code) => {
    exited++;
    if (exited === processes) process.exit(stopping ? 0 : 1);
    if (stopping) return;
    console.error(`worker ${worker.id} exited (${code}): stopping the others`);
    stop();
  });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function runWorker(): Promise<void> {
  const { startServer, loadConfig, createLogger } = await checkoutModules();
  const first = process.env['ARGUS_PROCESS_INDEX'] === '0';
  const running = await startServer(loadConfig(process.env), createLogger(), { instanceLock: first });
  if (!running) process.exit(1);
  process.once('SIGTERM', () => void running.stop().then(() => process.exit(0)));
}

if (cluster.isPrimary) runPrimary();
else await runWorker();
