/**
 * Process entry (start-up step 5): config → instance lock → database pool →
 * Redis, bus and rate-limit store → app.listen, with the live hub on the same
 * HTTP server (`/api/live` upgrades). SIGTERM/SIGINT: live sockets close with
 * 1001, stop accepting, finish requests in flight, close everything, exit 0.
 */
import http from 'node:http';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import { createKnex } from '../../db/connection.js';
import type { Knex } from 'knex';
import type { Bus } from './bus/bus.js';
import { createMemoryBus } from './bus/memory-bus.js';
import { createRedisBus } from './bus/redis-bus.js';
import { ConfigError, loadConfig, type AppConfig } from './config.js';
import { createApp } from './app.js';
import { ANOTHER_INSTANCE_MESSAGE, acquireInstanceLock, type InstanceLock } from './instance-lock.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createPasswordHasher } from './lib/password-hasher.js';
import { isMain } from '../../db/is-main.js';
import type { LiveHub } from './live/hub.js';
import type { LiveOptions } from './live/assembly.js';
import { createLogger, type Logger } from './lib/logger.js';
import { createRedisClient, waitUntilReady } from './lib/redis.js';
import { createSecretBox } from './lib/secret-box.js';
import type { RateLimitStore } from './ratelimit/rate-limiter.js';

const SHUTDOWN_GRACE_MS = 10_000;

export interface StartOptions {
  instanceLock?: boolean;
  redisPrefix?: string;
  /** Tests: a clock they move, and near-zero sign-in failure delays. */
  clock?: Clock;
  loginFailureDelayMs?: number;
  /** Tests: drive the live channel's 25 s heartbeat by hand; a smaller replay buffer. */
  live?: LiveOptions;
  /** Tests: middleware that wraps everything (the answers' check against the OpenAPI document). */
  outermost?: Koa.Middleware;
}

export interface RunningServer {
  server: http.Server;
  app: Koa;
  port: number;
  bus: Bus;
  live: LiveHub;
  /** The app's pool (tests count its queries). */
  db: Knex;
  stop(): Promise<void>;
}

/** Builds the whole graph and listens. Exported so tests start the real thing in-process. */
export async function startServer(
  config: AppConfig,
  log: Logger,
  options: StartOptions = {},
): Promise<RunningServer | null> {
  let lock: InstanceLock | null = null;
  if (options.instanceLock !== false) {
    lock = await acquireInstanceLock(config.database.url, log);
    if (!lock) return null;
  }

  const db = createKnex({
    url: config.database.url,
    poolMax: config.database.poolMax,
    statementTimeoutMs: config.database.statementTimeoutMs,
    log,
  });

  let bus: Bus;
  let rateLimitStore: RateLimitStore;
  const redisClients: { quit(): Promise<unknown>; disconnect(): void }[] = [];
  let redis: Redis | null = null;
  if (config.redisUrl === 'memory://') {
    bus = createMemoryBus();
    rateLimitStore = { kind: 'memory' };
  } else {
    const prefix = options.redisPrefix ?? 'argus:';
    redis = createRedisClient(config.redisUrl, log);
    const subscriber = createRedisClient(config.redisUrl, log, { subscriber: true });
    redisClients.push(redis, subscriber);
    bus = createRedisBus({ publisher: redis, subscriber, prefix, log });
    rateLimitStore = { kind: 'redis', client: redis, prefix };
    if (!(await waitUntilReady(redis, 2000)))
      log.warn('Redis is not reachable: starting anyway (live updates stop, rate limits fail open)');
  }

  const hasher = createPasswordHasher(config.bcryptCost);
  const box = createSecretBox(
    { settingsEncryptionKey: config.settingsEncryptionKey, authSecret: config.authSecret },
    log,
  );
  const {
    app,
    shutdown: shutdownFeatures,
    live: buildLiveHub,
    housekeeping,
    checkRunner,
    secretsKeyCheck,
  } = createApp({
    config,
    box,
    log,
    db,
    redis,
    bus,
    rateLimitStore,
    clock: options.clock ?? systemClock,
    hasher,
    ...(options.loginFailureDelayMs !== undefined ? { loginFailureDelayMs: options.loginFailureDelayMs } : {}),
    ...(options.outermost ? { outermost: options.outermost } : {}),
  });
  // a database that does not answer yet must not stop the start: health reports it, the check waits for next start
  await secretsKeyCheck().catch((error: unknown) =>
    log.error({ err: { message: (error as Error).message } }, 'Could not check the key of stored secrets'),
  );
  housekeeping.start();
  checkRunner.start();
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000; // longer than common proxy idle timeouts
  const live = buildLiveHub(options.live);
  await live.start();
  server.on('upgrade', (req, socket, head) => void live.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.hostname, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, hostname: config.hostname }, `Argus listening on ${config.hostname}:${port}`);

  let stopping: Promise<void> | null = null;
  return {
    server,
    app,
    port,
    bus,
    live,
    db,
    stop() {
      stopping ??= (async () => {
        await live.close(); // 1001 to every open dashboard: they reconnect to the next instance
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(force);
        await housekeeping.stop();
        await shutdownFeatures();
        await bus.close();
        for (const client of redisClients) await client.quit().catch(() => client.disconnect());
        await db.destroy();
        await hasher.close();
        await lock?.release();
      })();
      return stopping;
    },
  };
}

async function main(): Promise<void> {
  const log = createLogger();
  let config: AppConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.fatal(error.message);
      process.exit(1);
    }
    throw error;
  }
  for (const warning of config.warnings) log.warn(warning);

  const running = await startServer(config, log);
  if (!running) {
    log.fatal(ANOTHER_INSTANCE_MESSAGE);
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    log.info({ signal }, 'Shutting down');
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

if (isMain(import.meta.url)) await main();
