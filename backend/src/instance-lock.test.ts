import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ANOTHER_INSTANCE_MESSAGE, acquireInstanceLock } from './instance-lock.js';
import { createTestDatabase, type TestDatabase } from './testing/database.js';
import { captureLogger } from './testing/logger.js';
import { freePort, waitFor } from './testing/net.js';
import { SHARED_REDIS_URL } from './testing/redis.js';
import { runScript, startScript } from './testing/script.js';

describe('one app instance per database', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    db = await createTestDatabase();
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: SHARED_REDIS_URL,
      AUTH_SECRET: 'instance-lock-test-secret-0123456789abcdef',
      HOSTNAME: '127.0.0.1',
      NODE_ENV: 'test',
    };
  });
  after(async () => {
    await db.drop();
  });

  it('a second instance against the same database exits 1 with the message', async () => {
    const lock = await acquireInstanceLock(db.url, captureLogger().log);
    assert.ok(lock, 'the first instance takes the lock');
    try {
      const second = await runScript('backend/src/main.ts', [], { ...env, PORT: String(await freePort()) });
      assert.equal(second.code, 1, second.output);
      assert.match(second.output, new RegExp(ANOTHER_INSTANCE_MESSAGE));
    } finally {
      await lock.release();
    }
    const again = await acquireInstanceLock(db.url, captureLogger().log);
    assert.ok(again, 'the lock is free once the first instance is gone');
    await again.release();
  });

  // (requests in flight finish through http.Server#close; no endpoint is slow enough to catch one here)
  it('serves, then on SIGTERM stops accepting, exits 0 and releases the lock', async () => {
    const port = await freePort();
    const server = startScript('backend/src/main.ts', [], { ...env, PORT: String(port) });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200, 20_000, 100);
      server.child.kill('SIGTERM'); // to the process itself, as an orchestrator does
      assert.equal(await server.exited, 0, server.output());
      await assert.rejects(fetch(`http://127.0.0.1:${port}/api/health`), 'nothing listens any more');
      const lock = await acquireInstanceLock(db.url, captureLogger().log);
      assert.ok(lock, 'the lock was released');
      await lock.release();
    } finally {
      server.kill('SIGKILL');
    }
  });
});
