import assert from 'node:assert/strict';
import { auditTrailOn } from '../testing/audit.js';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
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
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { createAgentDist } from './dist.js';
import { createAgentsRepo } from './repo.js';
import { createAgentUpdates } from './rollout.js';
import { agentRoutes } from './routes.js';
import { createAgentEndpoints } from './service.js';

const run = promisify(execFile);
const KEY = 'enrollA_0123456789abcdefghijklmn';
const bytes = (label: string) => Buffer.from(`#!/bin/sh\necho fake argus-agent ${label}\n`);
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A release directory as an operator drops it into AGENT_DIST_DIR. */
async function writeRelease(dir: string, version: string, files: Record<string, Buffer>, lie = false) {
  await mkdir(path.join(dir, version), { recursive: true });
  const manifest: Record<string, { sha256: string; size: number }> = {};
  for (const [arch, data] of Object.entries(files)) {
    await writeFile(path.join(dir, version, `argus-agent-linux-${arch}`), data);
    manifest[arch] = { sha256: lie ? sha(Buffer.from('other')) : sha(data), size: data.length };
  }
  await writeFile(path.join(dir, version, 'manifest.json'), JSON.stringify({ version, files: manifest }));
}

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
    const router = agentRoutes({ endpoints, updates });
    app.use(router.routes()).use(router.allowedMethods());
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return publicUrl;
  }

  async function get(url: string) {
    const response = await fetch(url);
    const body = Buffer.from(await response.arrayBuffer());
    const text = body.toString('utf8');
    const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null;
    return { status: response.status, headers: response.headers, body, text, json };
  }

  before(async () => {
    db = await createTestDatabase();
    distDir = await mkdtemp(path.join(os.tmpdir(), 'argus-dist-'));
    await writeRelease(distDir, '2.9.0', { x86_64: bytes('2.9.0 x86_64'), aarch64: bytes('2.9.0 aarch64') });
    await writeRelease(distDir, '2.28.1', { x86_64: bytes('2.28.1 x86_64') });
    await writeRelease(distDir, '2.10.0', { aarch64: bytes('2.10.0 aarch64') });
    await writeRelease(distDir, '3.0.0', { x86_64: bytes('3.0.0 x86_64') }, true); // manifest lies
    await writeFile(path.join(distDir, '2.28.1', 'argus-agent-linux-riscv64'), bytes('unlisted'));
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
      const reply = await get(`${base}/api/agent/install.sh?key=${KEY}`);
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('content-type') ?? '', /^text\/x-shellscript/);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.ok(reply.text.startsWith('#!/bin/sh\n'));
      for (const line of [
        `\nARGUS_URL='${base}'\n`,
        `\nENROLLMENT_KEY='${KEY}'\n`,
        ' "$ARGUS_URL/api/agent/version?arch=$ARCH" ',
        ' "$ARGUS_URL/api/agent/config?key=$ENROLLMENT_KEY" ',
        '\nStartLimitIntervalSec=0\n',
      ])
        assert.ok(reply.text.includes(line), line);
      const dir = await mkdtemp(path.join(os.tmpdir(), 'argus-install-'));
      try {
        const file = path.join(dir, 'install.sh');
        await writeFile(file, reply.body);
        await run('sh', ['-n', file]);
        await run('shellcheck', ['-s', 'sh', file]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('refuses a key that could not be an enrollment key before it reaches a script', async () => {
      for (const key of ["x'; rm -rf / #aaaaaaaaaaaa", 'short', '', 'a'.repeat(129)]) {
        const reply = await get(`${base}/api/agent/install.sh?key=${encodeURIComponent(key)}`);
        assert.equal(reply.status, 400, key);
        assert.deepEqual((reply.json as { details: unknown }).details, { field: 'key' });
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
        sha256: sha(bytes('2.28.1 x86_64')),
      });
      assert.equal((await get(`${base}/api/agent/version?arch=amd64`)).text, x86.text);
      const arm = await get(`${base}/api/agent/version?arch=aarch64`);
      assert.equal((arm.json as { version: string }).version, '2.10.0'); // 2.10.0 > 2.9.0
      assert.ok(logs.messages().includes('Agent build skipped: file SHA-256 differs from manifest'));
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
      assert.deepEqual(reply.body, bytes('2.9.0 aarch64'));
      assert.equal(reply.headers.get('content-length'), String(bytes('2.9.0 aarch64').length));
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

  describe('the installer run by dash against this server', () => {
    /** A PATH holding only what the script may use, with root, arch and systemd stubbed. */
    async function sandbox(fetcher: 'curl' | 'wget') {
      const dir = await mkdtemp(path.join(distDir, 'run-')); // not a release name: ignored by the dist
      const bin = path.join(dir, 'bin');
      await mkdir(bin);
      const tools = [
        'mktemp',
        'rm',
        'sed',
        'head',
        'wc',
        'sha256sum',
        'cut',
        'grep',
        'mkdir',
        'chmod',
        'cp',
        'mv',
        'ln',
      ];
      for (const tool of [...tools, 'cat', fetcher]) {
        const found = ['/usr/bin', '/bin'].map((d) => path.join(d, tool)).find((file) => existsSync(file));
        assert.ok(found, `${tool} is installed`);
        await symlink(found, path.join(bin, tool));
      }
      const stub = async (name: string, body: string) =>
        writeFile(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      await stub('id', 'echo 0');
      await stub('uname', 'echo arm64');
      await stub('systemctl', 'echo "$*" >>"$STUB_LOG"\n[ "$1" != is-active ]');
      const [root, script] = [path.join(dir, 'root'), path.join(dir, 'install.sh')];
      const install = async (key: string, options: string[] = []) => {
        await writeFile(script, (await get(`${base}/api/agent/install.sh?key=${key}`)).body);
        const env = { PATH: bin, ARGUS_INSTALL_ROOT: root, STUB_LOG: path.join(dir, 'systemctl.log') };
        return run('/bin/sh', [script, ...options], { env }).then(
          (result) => ({ code: 0, ...result }),
          (error: { code: number; stdout: string; stderr: string }) => error,
        );
      };
      return { dir, root, install };
    }

    for (const fetcher of ['curl', 'wget'] as const) {
      it(`installs the verified build, a 0600 config and the unit, then starts it (${fetcher})`, async () => {
        const { dir, root, install } = await sandbox(fetcher);
        // an older installer's layout: the binary itself in /usr/local/bin
        await mkdir(path.join(root, 'usr/local/bin'), { recursive: true });
        await writeFile(path.join(root, 'usr/local/bin/argus-agent'), 'an older agent', { mode: 0o755 });
        const result = await install(KEY);
        assert.equal(result.code, 0, result.stderr);
        const agent = path.join(root, 'usr/local/lib/argus-agent/argus-agent');
        assert.deepEqual(await readFile(agent), bytes('2.10.0 aarch64')); // arm64 → aarch64, newest
        assert.equal((await stat(agent)).mode & 0o777, 0o755);
        // the command is a link into the directory the agent may update itself in
        assert.equal(await readlink(path.join(root, 'usr/local/bin/argus-agent')), '../lib/argus-agent/argus-agent');
        const config = path.join(root, 'etc/argus-agent/config.yaml');
        assert.equal((await stat(config)).mode & 0o777, 0o600);
        assert.equal((await stat(path.dirname(config))).mode & 0o777, 0o700);
        assert.match(await readFile(config, 'utf8'), /^webhook_secret: "webhook-secret-for-agent-endpoint-tests"$/m);
        const unit = await readFile(path.join(root, 'etc/systemd/system/argus-agent.service'), 'utf8');
        assert.match(unit, /^\[Unit\][^[]*^StartLimitIntervalSec=0$/m);
        assert.match(unit, /^ExecStart=\/usr\/local\/bin\/argus-agent run --config \/etc\/argus-agent\/config.yaml$/m);
        assert.match(unit, /^StateDirectory=argus-agent$/m);
        assert.doesNotMatch(
          unit,
          /#USER|^User=|#GROUPS|^SupplementaryGroups=/m,
          'no useradd here: no User= or journal group line, and no placeholder left',
        );
        assert.match(unit, /^Restart=always\nRestartSec=5$/m);
        // the agent's restart into an update it installed (agent/src/update.ts) is no failure
        assert.match(unit, /^SuccessExitStatus=75\nRestartForceExitStatus=75$/m);
        const dropIn = path.join(root, 'etc/systemd/system/argus-agent.service.d/10-start-limit.conf');
        assert.equal(await readFile(dropIn, 'utf8'), '[Unit]\nStartLimitIntervalSec=0\n');
        const calls = await readFile(path.join(dir, 'systemctl.log'), 'utf8');
        assert.deepEqual(calls.trim().split('\n'), [
          'is-active --quiet argus-agent',
          'daemon-reload',
          'enable --now argus-agent',
        ]);
      });
    }

    it('with --no-systemd, installs the same and runs the agent in the foreground, without systemd', async () => {
      const { dir, root, install } = await sandbox('curl');
      const result = await install(KEY, ['--no-systemd']);
      assert.equal(result.code, 0, result.stderr);
      // the fake build prints who it is: the installer exec'd the installed binary
      assert.match(result.stdout, /running it in the foreground\nfake argus-agent 2\.10\.0 aarch64\n$/);
      assert.equal(existsSync(path.join(root, 'etc/argus-agent/config.yaml')), true);
      assert.equal(existsSync(path.join(root, 'etc/systemd/system/argus-agent.service')), false);
      assert.equal(existsSync(path.join(dir, 'systemctl.log')), false, 'systemctl never called');
    });

    it('changes nothing on the host when the server refuses the key', async () => {
      const { root, install } = await sandbox('curl');
      const result = await install('enrollZ_0123456789abcdefghijklmn');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /refused the enrollment key/);
      assert.equal(existsSync(path.join(root, 'usr/local/bin/argus-agent')), false);
      assert.equal(existsSync(path.join(root, 'etc/argus-agent/config.yaml')), false);
    });
  });
});
