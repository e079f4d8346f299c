/**
 * Builds the real server in-process for HTTP tests: real PostgreSQL database,
 * real Redis (prefixed), real sockets on a free port.
 */
import { after, before } from 'node:test';
import { loadConfig, type AppConfig } from '../config.js';
import { startServer, type RunningServer, type StartOptions } from '../main.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { captureLogger } from './logger.js';
import { SHARED_REDIS_URL, testPrefix } from './redis.js';

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: SHARED_REDIS_URL,
    AUTH_SECRET: 'test-auth-secret-that-is-long-enough-0123456789',
    AUTH_URL: 'http://127.0.0.1',
    NODE_ENV: 'test',
    PORT: '0',
    HOSTNAME: '127.0.0.1',
    DATABASE_POOL_MAX: '5',
    BCRYPT_COST: '4',
    ...env,
  });
}

export interface TestServer extends RunningServer {
  url: string;
  logs: ReturnType<typeof captureLogger>;
}

export async function startTestServer(
  config: AppConfig,
  options: Pick<StartOptions, 'clock' | 'live'> = {},
): Promise<TestServer> {
  const logs = captureLogger();
  const running = await startServer(config, logs.log, {
    instanceLock: false,
    redisPrefix: testPrefix(),
    loginFailureDelayMs: 1,
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
  options: Pick<StartOptions, 'clock' | 'live'> = {},
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
