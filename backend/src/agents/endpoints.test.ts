import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Koa from 'koa';
import { errorMiddleware } from '../http/error-middleware.js';
import { systemClock } from '../lib/clock.js';
import { createRateLimiter } from '../ratelimit/rate-limiter.js';
import { createCustomer } from '../testing/accounts.js';
import { fakeBuild, sha256Of, writeRelease } from '../testing/agent-builds.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { createAgentDist } from './dist.js';
import { createAgentsRepo } from './repo.js';
import { createAgentUpdates } from './rollout.js';
import { agentRoutes } from './routes.js';
import { mountRoutes } from '../http/route.js';
import { createAgentEndpoints } from './service.js';

const run = promisify(execFile);
const KEY = 'enrollA_0123456789abcdefghijklmn';

describe('/api/agent/install.sh, version and download', () => {
  const logs = captureLogger();
  const servers: http.Server[] = [];
  let db: TestDatabase;
  let distDir: string;
  let base: string;
  let bare: string; // an empty AGENT_DIST_DIR

  async function serve(dir: string): Promise<string> {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const dist = createAgentDist({ dir, publicUrl, clock: systemClock, log: logs.log, rescanMs: 0 });
    const endpoints = createAgentEndpoints({
      repo: createAgentsRepo(db.knex),
      dist,
      webhookSecret: 'webhook-secret-for-agent-endpoint-tests',
      keyFailures: createRateLimiter({ kind: 'memory' }, { name: 'k', points: 100, durationSeconds: 60 }, logs.log),
    });
    const updates = createAgentUpdates({
      db: db.knex,
      dist,
      clock: systemClock,
      log: logs.log,
      audit: auditTrailOn(db.knex),
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(logs.log));
    app.use(async (ctx, next) => {
      ctx.state.clientIp = '127.0.0.1';
      await next();
    });
    const router = mountRoutes(agentRoutes, { endpoints, updates, log: logs.log });
    app.use(router.routes()).use(router.allowedMethods());
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return publicUrl;
  }

  /** What an installer sends: the key in its header, never in the URL. */
  const withKey = (key: string) => ({ headers: { 'Argus-Enrollment-Key': key } });

  async function get(url: string, init?: RequestInit) {
    const response = await fetch(url, init);
    const body = Buffer.from(await response.arrayBuffer());
    const text = body.toString('utf8');
    const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null;
    return { status: response.status, headers: response.headers, body, text, json };
  }

  before(async () => {
    db = await createTestDatabase();
    distDir = await mkdtemp(path.join(os.tmpdir(), 'argus-dist-'));
    await writeRelease(distDir, '2.9.0', { x86_64: fakeBuild('2.9.0 x86_64'), aarch64: fakeBuild('2.9.0 aarch64') });
    await writeRelease(distDir, '2.28.1', { x86_64: fakeBuild('2.28.1 x86_64') });
    await writeRelease(distDir, '2.10.0', { aarch64: fakeBuild('2.10.0 aarch64') });
    await writeRelease(distDir, '3.0.0', { x86_64: fakeBuild('3.0.0 x86_64') }, true); // manifest lies
    await writeFile(path.join(distDir, '2.28.1', 'argus-agent-linux-riscv64'), fakeBuild('unlisted'));
    await mkdir(path.join(distDir, 'notes'));
    const customer = await createCustomer(db.knex);
    await db.knex('clusters').insert({ customer_id: customer, name: 'install', enrollment_key: KEY });
    base = await serve(distDir);
    bare = await serve(path.join(distDir, 'notes'));
  });

  after(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await db.drop();
    await rm(distDir, { recursive: true, force: true });
  });

  describe('install.sh', () => {
    it('is a POSIX sh script that passes sh -n and shellcheck, built from the public URL', async () => {
      const reply = await get(`${base}/api/agent/install.sh`, withKey(KEY));
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('content-type') ?? '', /^text\/x-shellscript/);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.ok(reply.text.startsWith('#!/bin/sh\n'));
      for (const line of [
        `\nARGUS_URL='${base}'\n`,
        `\nENROLLMENT_KEY='${KEY}'\n`,
        ' "$ARGUS_URL/api/agent/version?arch=$ARCH" ',
        ' "$ARGUS_URL/api/agent/config" ',
        '\nStartLimitIntervalSec=0\n',
      ])
        assert.ok(reply.text.includes(line), line);
      // the installer proper is a quoted here-document of the wrapper: checked on its own as well
      const inner = /<<'ARGUS_INSTALLER_END'\n([^]*)\nARGUS_INSTALLER_END\n/.exec(reply.text)?.[1];
      assert.ok(inner?.startsWith('#!/bin/sh\n'), 'the installer proper is in the wrapper');
      const dir = await mkdtemp(path.join(os.tmpdir(), 'argus-install-'));
      try {
        for (const [name, text] of [
          ['install.sh', reply.text],
          ['installer.sh', inner ?? ''],
        ] as const) {
          const file = path.join(dir, name);
          await writeFile(file, text);
          await run('sh', ['-n', file]);
          await run('shellcheck', ['-s', 'sh', file]);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('takes the key from its header; ?key= still works for old commands, with a warning that leaves the key out', async () => {
      const before = logs.lines().length;
      assert.equal((await get(`${base}/api/agent/install.sh`, withKey(KEY))).status, 200);
      assert.equal((await get(`${base}/api/agent/config`, withKey(KEY))).status, 200);
      assert.equal(logs.lines().length, before, 'no warning for the header');
      const old = await get(`${base}/api/agent/install.sh?key=${KEY}`);
      assert.equal(old.status, 200);
      assert.ok(old.text.includes(`\nENROLLMENT_KEY='${KEY}'\n`));
      assert.equal((await get(`${base}/api/agent/config?key=${KEY}`)).status, 200);
      const warnings = logs.lines().slice(before);
      assert.deepEqual(
        warnings.map((line) => [line['level'], line['path']]),
        [
          [40, '/api/agent/install.sh'],
          [40, '/api/agent/config'],
        ],
      );
      assert.match(String(warnings[0]?.['msg']), /^Enrolment key sent in the URL \(\?key=\): deprecated/);
      assert.ok(!JSON.stringify(warnings).includes(KEY), 'the key is not logged');
    });

    it('refuses a key that could not be an enrollment key before it reaches a script', async () => {
      for (const key of ["x'; rm -rf / #aaaaaaaaaaaa", 'short', '', 'a'.repeat(129)]) {
        const reply = await get(`${base}/api/agent/install.sh`, withKey(key));
        assert.equal(reply.status, 400, key);
        assert.deepEqual((reply.json as { details: unknown }).details, { field: 'key' });
        const old = await get(`${base}/api/agent/install.sh?key=${encodeURIComponent(key)}`);
        assert.equal(old.status, 400, key);
      }
      assert.equal((await get(`${base}/api/agent/install.sh`)).status, 400);
    });
  });

  describe('version and download', () => {
    it('answers the newest build per architecture in semver order, with its download URL', async () => {
      const x86 = await get(`${base}/api/agent/version?arch=x86_64`);
      assert.equal(x86.status, 200);
      assert.deepEqual(x86.json, {
        version: '2.28.1',
        url: `${base}/api/agent/download/2.28.1/x86_64`,
        sha256: sha256Of(fakeBuild('2.28.1 x86_64')),
      });
      assert.equal((await get(`${base}/api/agent/version?arch=amd64`)).text, x86.text);
      const arm = await get(`${base}/api/agent/version?arch=aarch64`);
      assert.equal((arm.json as { version: string }).version, '2.10.0'); // 2.10.0 > 2.9.0
      assert.ok(logs.messages().includes('Agent build skipped: file SHA-256 differs from manifest'));
    });

    it('answers one release exactly when asked (the root start step checks a staged update against it)', async () => {
      const older = await get(`${base}/api/agent/version?arch=x86_64&version=2.9.0`);
      assert.deepEqual(older.json, {
        version: '2.9.0',
        url: `${base}/api/agent/download/2.9.0/x86_64`,
        sha256: sha256Of(fakeBuild('2.9.0 x86_64')),
      });
      assert.equal((await get(`${base}/api/agent/version?arch=x86_64&version=2.10.0`)).status, 404); // aarch64 only
      assert.equal((await get(`${base}/api/agent/version?arch=x86_64&version=3.0.0`)).status, 404); // manifest lies
      const bad = await get(`${base}/api/agent/version?arch=x86_64&version=..%2F2.9.0`);
      assert.equal(bad.status, 400);
      assert.deepEqual((bad.json as { details: unknown }).details, { field: 'version' });
    });

    it('answers 404 without a build for that architecture, or without any build', async () => {
      const none = await get(`${base}/api/agent/version?arch=riscv64`);
      assert.equal(none.status, 404);
      assert.equal((none.json as { error: string }).error, 'No agent build available');
      assert.equal((await get(`${bare}/api/agent/version?arch=x86_64`)).status, 404);
      assert.equal((await get(`${base}/api/agent/version`)).status, 400);
    });

    it('streams exactly the bytes the manifest describes', async () => {
      const reply = await get(`${base}/api/agent/download/2.9.0/aarch64`);
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('content-type'), 'application/octet-stream');
      assert.deepEqual(reply.body, fakeBuild('2.9.0 aarch64'));
      assert.equal(reply.headers.get('content-length'), String(fakeBuild('2.9.0 aarch64').length));
    });

    it('serves nothing that is not a build listed in a manifest', async () => {
      for (const tail of [
        '2.28.1/..%2Fmanifest.json',
        '..%2F2.28.1/x86_64',
        '..%2F..%2F..%2Fetc/passwd',
        '2.28.1/riscv64', // on disk, not in the manifest
        '3.0.0/x86_64', // manifest checksum does not match the file
        '2.28.1/aarch64',
        '2.28.1/x86_64%00',
        'notes/x86_64',
      ]) {
        const reply = await get(`${base}/api/agent/download/${tail}`);
        assert.equal(reply.status, 404, tail);
      }
    });
  });
});
