/**
 * The server side of `bench live`: the whole app (startServer) on a database
 * the bench prepared, as its own process so the 1,000 clients do not share its
 * event loop or its memory figures. Started with --expose-gc and an IPC
 * channel: answers `{t: "mem"}` with its memory after a full GC.
 */
import { systemClock } from '../../backend/src/lib/clock.js';
import { createLogger } from '../../db/logger.js';
import { startServer } from '../../backend/src/main.js';
import { listening, testConfig } from '../../backend/src/testing/app.js';

const [databaseUrl, prefix] = process.argv.slice(2);
if (!databaseUrl || !prefix || !process.send)
  throw new Error('usage: live-server.ts <database url> <redis prefix> (with IPC)');
const log = createLogger({ level: 'warn', name: 'bench-live' });
const running = await startServer(await listening(testConfig(databaseUrl, { DATABASE_POOL_MAX: '20' })), log, {
  instanceLock: false,
  redisPrefix: prefix,
  clock: systemClock,
});
if (!running) throw new Error('server did not start');

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (message: { t: string }) => {
  if (message.t === 'mem') {
    gc?.();
    gc?.();
    const usage = process.memoryUsage();
    process.send?.({ t: 'mem', ...usage, connections: running.live.stats().connections });
  } else if (message.t === 'stop') {
    void running.stop().then(() => process.exit(0));
  }
});
process.send({ t: 'ready', port: running.port });
