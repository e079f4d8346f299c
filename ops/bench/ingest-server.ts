/**
 * The server side of `bench ingest`: the ingest router on a small Koa app (the
 * same middleware the app puts in front of it: errors, client address), a
 * throwaway PostgreSQL database, real Redis rate limits, on a free port. Runs as
 * its own process so the load generator does not share its event loop; prints
 * one JSON line with its address and keys, then a stats line every second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createKnex } from '../../db/connection.js';
import { createRedisBus } from '../../backend/src/bus/redis-bus.js';
import { createIngest } from '../../backend/src/ingest/routes.js';
import { clientAddress } from '../../backend/src/http/client-ip.js';
import { errorMiddleware } from '../../backend/src/http/error-middleware.js';
import { systemClock } from '../../backend/src/lib/clock.js';
import { randomToken } from '../../backend/src/lib/crypto.js';
import { isMain } from '../../db/is-main.js';
import { createLogger } from '../../db/logger.js';
import { createRedisClient, waitUntilReady } from '../../backend/src/lib/redis.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { SHARED_REDIS_URL, testPrefix } from '../../backend/src/testing/redis.js';

export interface BenchServerInfo {
  url: string;
  secret: string;
  database: string;
  /** One enrollment key per 100 systems (the per-cluster enrolment limit). */
  enrollmentKeys: string[];
}

export interface GroupCommitTuning {
  lanes?: number;
  windowMs?: number;
}

export async function startIngestBenchServer(systems: number, tuning: GroupCommitTuning = {}, poolMax = 20) {
  const log = createLogger({ level: 'warn', name: 'bench-ingest' });
  const db = await createTestDatabase();
  await db.knex.destroy();
  // the app's pool: DATABASE_POOL_MAX defaults to 20, with the statement timeout
  const knex = createKnex({ url: db.url, poolMax, statementTimeoutMs: 30_000, log });
  const redis = createRedisClient(SHARED_REDIS_URL, log);
  const subscriber = createRedisClient(SHARED_REDIS_URL, log, { subscriber: true });
  await waitUntilReady(redis, 2000);
  const prefix = testPrefix();
  const bus = createRedisBus({ publisher: redis, subscriber, prefix, log });

  const customerId = await createCustomer(knex, 'Bench customer');
  const enrollmentKeys: string[] = [];
  for (let i = 0; i < Math.ceil(systems / 100); i++) {
    const key = randomToken(16);
    await knex('clusters').insert({ customer_id: customerId, name: `bench-${i}`, enrollment_key: key });
    enrollmentKeys.push(key);
  }
  const secret = randomToken(32);
  const ingest = createIngest({
    db: knex,
    bus,
    clock: systemClock,
    log,
    webhookSecret: secret,
    rawRetentionMs: 7 * 86_400_000,
    rateLimitStore: { kind: 'redis', client: redis, prefix },
    // the bench drives each simulated agent far faster than a real one reports
    reportsPerSystemPerMinute: 1_000_000,
    groupCommit: tuning,
  });
  const app = new Koa();
  app.silent = true;
  app.use(errorMiddleware(log));
  app.use(async (ctx, next) => {
    ctx.state.clientIp = clientAddress(ctx.get('x-forwarded-for') || undefined, ctx.req.socket.remoteAddress);
    await next();
  });
  app.use(ingest.router.routes()).use(ingest.router.allowedMethods());
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const info: BenchServerInfo = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secret,
    database: db.name,
    enrollmentKeys,
  };
  return {
    info,
    writer: ingest.writer,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await ingest.close();
      await bus.close();
      redis.disconnect();
      subscriber.disconnect();
      await knex.destroy();
      await db.drop();
    },
  };
}

export interface ServerStats {
  rss: number;
  heapUsed: number;
  writer: { statements: number; requests: number; rows: number; largestBatch: number; statementMs: number };
}

/** Starts this file as its own process; its stats lines keep arriving while it runs. */
export async function spawnIngestBenchServer(systems: number, tuning: GroupCommitTuning = {}) {
  const child: ChildProcess = spawn(
    process.execPath,
    // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server
    [
      ...(process.env['BENCH_SERVER_NODE_ARGS']?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      String(systems),
      JSON.stringify(tuning),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let latest: ServerStats | null = null;
  const rssSeen: number[] = [];
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = new Promise<BenchServerInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { ready?: BenchServerInfo; stats?: ServerStats };
      if (message.ready) resolve(message.ready);
      if (message.stats) {
        latest = message.stats;
        rssSeen.push(message.stats.rss);
      }
    });
  });
  return {
    info: await ready,
    stats: () => latest,
    rss: () => rssSeen,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

if (isMain(import.meta.url)) {
  const systems = Number(process.argv[2] ?? 200);
  const running = await startIngestBenchServer(systems, JSON.parse(process.argv[3] ?? '{}') as GroupCommitTuning);
  const write = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
  write({ ready: running.info });
  const stats = setInterval(() => {
    const memory = process.memoryUsage();
    write({ stats: { rss: memory.rss, heapUsed: memory.heapUsed, writer: running.writer.stats() } });
  }, 1000);
  const stop = async () => {
    clearInterval(stats);
    await running.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
