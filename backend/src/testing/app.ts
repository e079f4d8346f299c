/**
 * Builds the real server in-process for HTTP tests: real PostgreSQL database,
 * real Redis (prefixed), real sockets on a free port.
 */
import { after, before } from 'node:test';
import { loadConfig, type AppConfig } from '../config.js';
import { startServer, type RunningServer, type StartOptions } from '../main.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { captureLogger } from './logger.js';
import { freePort } from './net.js';
import { createAnswerCheck } from './conformance.js';
import { SHARED_REDIS_URL, testPrefix } from './redis.js';

/** testConfig's AUTH_URL unless a test names one: startTestServer replaces it with where it listens. */
const LISTENING_URL = 'http://127.0.0.1';

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: SHARED_REDIS_URL,
    AUTH_SECRET: 'test-auth-secret-that-is-long-enough-0123456789',
    AUTH_URL: LISTENING_URL,
    NODE_ENV: 'test',
    PORT: '0',
    HOSTNAME: '127.0.0.1',
    DATABASE_POOL_MAX: '5',
    BCRYPT_COST: '4',
    ...env,
  });
}

/**
 * As the demo does: a free port chosen now, and AUTH_URL (and PUBLIC_URL) where the server will
 * listen unless the test named its own, so the Host and Origin checks hold as deployed.
 */
export async function listening(config: AppConfig): Promise<AppConfig> {
  if (config.port !== 0) return config;
  const port = await freePort();
  const url = `${LISTENING_URL}:${port}`;
  return {
    ...config,
    port,
    authUrl: config.authUrl === LISTENING_URL ? url : config.authUrl,
    publicUrl: config.publicUrl === LISTENING_URL ? url : config.publicUrl,
  };
}

let shared: ReturnType<typeof createAnswerCheck> | undefined;
/** One check per test process: the document and its compiled schemas are the same for every server. */
export const answerCheck = () => (shared ??= createAnswerCheck());

export interface TestServer extends RunningServer {
  url: string;
  logs: ReturnType<typeof captureLogger>;
}

export async function startTestServer(
  config: AppConfig,
  options: Pick<StartOptions, 'clock' | 'live' | 'loginFailureDelayMs'> = {},
): Promise<TestServer> {
  const logs = captureLogger();
  const running = await startServer(await listening(config), logs.log, {
    instanceLock: false,
    redisPrefix: testPrefix(),
    loginFailureDelayMs: 1,
    outermost: answerCheck().middleware,
    ...options,
  });
  if (!running) throw new Error('server did not start');
  return { ...running, url: `http://127.0.0.1:${running.port}`, logs };
}

export interface ServerFixture {
  db: TestDatabase;
  server: TestServer;
}

/**
 * Registers before/after hooks that give the enclosing describe its own
 * migrated database and a real server on it; read the fields inside tests.
 */
export function useTestServer(
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'clock' | 'live' | 'loginFailureDelayMs'> = {},
): ServerFixture {
  const fixture = {} as ServerFixture;
  before(async () => {
    fixture.db = await createTestDatabase();
    fixture.server = await startTestServer(testConfig(fixture.db.url, env), options);
  });
  after(async () => {
    await fixture.server?.stop();
    await fixture.db?.drop();
  });
  return fixture;
}
