/**
 * The real server for benchmarks: backend/src/main.ts as `npm start` runs it (NODE_ENV=production,
 * the whole app, its own process), on a given database and Redis, on a free port. Its resident
 * memory is read from /proc every second while it runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { randomToken } from '../../backend/src/lib/crypto.js';
import { freePort, waitFor } from '../../backend/src/testing/net.js';

const MAIN = fileURLToPath(new URL('../../backend/src/main.ts', import.meta.url));

export interface RealServer {
  url: string;
  webhookSecret: string;
  pid: number;
  /** Resident set size, one sample a second since start (bytes). */
  rss: { at: number; bytes: number }[];
  stop(): Promise<void>;
}

async function residentBytes(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib ? Number(kib) * 1024 : null;
}

export async function spawnRealServer(options: {
  databaseUrl: string;
  redisUrl: string;
  env?: Record<string, string>;
}): Promise<RealServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const webhookSecret = randomToken(32);
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      AUTH_SECRET: randomToken(32),
      AUTH_URL: url,
      WEBHOOK_SECRET: webhookSecret,
      CRON_SECRET: randomToken(32),
      SETTINGS_ENCRYPTION_KEY: randomToken(32),
      PORT: String(port),
      HOSTNAME: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = once(child, 'exit');
  const rss: RealServer['rss'] = [];
  const sampler = setInterval(() => {
    void residentBytes(child.pid ?? 0).then((bytes) => bytes && rss.push({ at: Date.now(), bytes }));
  }, 1000);
  try {
    await waitFor(
      async () =>
        child.exitCode !== null ||
        fetch(`${url}/api/health`).then(
          (response) => response.ok,
          () => false,
        ),
      60_000,
    );
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
  } catch (error) {
    clearInterval(sampler);
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    webhookSecret,
    pid: child.pid ?? 0,
    rss,
    async stop() {
      clearInterval(sampler);
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
