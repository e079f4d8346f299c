/**
 * Self-update for real: two releases of the x86_64 single executable are built
 * (7.0.0 installed, 7.0.1 in the test server's AGENT_DIST_DIR). The running 7.0.0 is offered 7.0.1 in
 * an ingest answer, downloads it, swaps its own file and restarts into it — in the foreground by
 * exec'ing itself (same process), under systemd by exiting 75 for Restart= — and the server then sees
 * 7.0.1. Run as its own user (the installer's layout, needs root to set up), it cannot write its
 * executable: it stages the build, and the root start step `install-update` installs it. A build whose
 * bytes no longer match the offered sha256 is refused and 7.0.0 keeps reporting.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmod, chown, copyFile, mkdir, mkdtemp, open, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { waitFor } from '../../backend/src/testing/net.js';
import { buildAgent } from '../build/build-agent.js';
import { RESTART_EXIT_CODE } from '../src/update.js';

const run = promisify(execFile);
const WEBHOOK_SECRET = 'agent-update-binary-webhook-secret-012345';
const OLD = '7.0.0';
const NEW = '7.0.1';
const work = await mkdtemp(join(tmpdir(), 'argus-agent-update-'));
const dist = join(work, 'dist');
// a whole second, so the test can put the file's mtime back exactly after corrupting it
const MTIME = new Date('2026-11-26T00:00:00Z');

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

interface Agent {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The nobody account: an agent that runs as its own user, not root. */
const NOBODY = { uid: 65534, gid: 65534 };

function start(
  binary: string,
  config: string,
  env: NodeJS.ProcessEnv,
  user: { uid?: number; gid?: number } = {},
): Agent {
  const child = spawn(binary, ['run', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
}

describe('argus-agent updates itself (built executables, real server)', { timeout: 900_000 }, () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_DIST_DIR: dist });
  let oldBinary: string;
  let newBinary: string;
  let configText: string;
  const running: Agent[] = [];

  before(async () => {
    ({ dir: oldBinary } = await buildAgent({ outDir: join(work, 'old'), version: OLD, arches: ['x86_64'] }));
    oldBinary = join(oldBinary, 'argus-agent-linux-x86_64');
    ({ dir: newBinary } = await buildAgent({ outDir: dist, version: NEW, arches: ['x86_64'] }));
    newBinary = join(newBinary, 'argus-agent-linux-x86_64');
    await utimes(newBinary, MTIME, MTIME);
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Update GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'updating' });
    const config = await admin.get(`/api/agent/config?cluster=${cluster.body.id}`);
    assert.equal(config.status, 200);
    configText = config.body as string;
  });
  after(async () => {
    for (const agent of running) agent.child.kill('SIGKILL');
    await rm(work, { recursive: true, force: true });
  });

  /** An installed 7.0.0 with its own config, state and identity (each case is its own system). */
  async function install(name: string): Promise<{ binary: string; config: string; sub: string; state: string }> {
    const root = join(work, name);
    const state = join(root, 'state');
    await mkdir(join(root, 'bin'), { recursive: true });
    await mkdir(state, { recursive: true, mode: 0o700 });
    const binary = join(root, 'bin', 'argus-agent');
    await copyFile(oldBinary, binary);
    const sub = randomUUID();
    await writeFile(join(state, 'identity.json'), JSON.stringify({ sub, agentKey: null }), { mode: 0o600 });
    const config = join(root, 'config.yaml');
    await writeFile(config, `${configText}state_dir: "${state}"\ninterval: "5"\n`, { mode: 0o600 });
    return { binary, config, sub, state };
  }

  const reported = async (sub: string) =>
    (await fixture.db.knex('systems').where({ agent_id: sub }).first('agent_version'))?.agent_version as
      string | undefined;
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const { INVOCATION_ID: _systemd, ...rest } = process.env;
    return { ...rest, ...extra };
  };

  it('in the foreground: swaps its executable, execs it in the same process, and reports the new version', async () => {
    const host = await install('foreground');
    const agent = start(host.binary, host.config, env());
    running.push(agent);
    await waitFor(async () => (await reported(host.sub)) === NEW, 120_000, 250).catch(() => {
      throw new Error(`never reported ${NEW}:\n${agent.output()}`);
    });
    assert.equal(agent.child.exitCode, null, 'the same process runs on');
    assert.equal(await sha256(host.binary), await sha256(newBinary), 'the installed file is the new build');
    assert.match(agent.output(), new RegExp(`installed argus-agent ${NEW} \\(was ${OLD}\\); restarting`));
    assert.match(agent.output(), new RegExp(`argus-agent ${NEW}: reporting to`));
    await waitFor(async () => JSON.parse(await readFile(join(host.state, 'update.json'), 'utf8')).reported, 30_000);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0);
  });

  it('under systemd: exits for Restart= to start the new file, which reports the new version', async () => {
    const host = await install('systemd');
    const first = start(host.binary, host.config, env({ INVOCATION_ID: 'test-invocation' }));
    running.push(first);
    assert.equal(await first.exited, RESTART_EXIT_CODE, first.output());
    assert.equal(await sha256(host.binary), await sha256(newBinary));
    // what systemd does on that exit
    const second = start(host.binary, host.config, env({ INVOCATION_ID: 'test-invocation' }));
    running.push(second);
    await waitFor(async () => (await reported(host.sub)) === NEW, 60_000, 250).catch(() => {
      throw new Error(`never reported ${NEW}:\n${second.output()}`);
    });
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('as its own user under systemd: stages the build and exits; the root start step installs it; the new file reports', async () => {
    const host = await install('own-user');
    // the installer's layout: executable and configuration root's, the state directory the agent's
    await chmod(work, 0o755);
    await chmod(join(work, 'own-user'), 0o755);
    await chmod(host.config, 0o644);
    await chown(host.state, NOBODY.uid, NOBODY.gid);
    await chown(join(host.state, 'identity.json'), NOBODY.uid, NOBODY.gid);
    const first = start(host.binary, host.config, env({ INVOCATION_ID: 'test-invocation' }), NOBODY);
    running.push(first);
    assert.equal(await first.exited, RESTART_EXIT_CODE, first.output());
    assert.match(first.output(), new RegExp(`staged argus-agent ${NEW} for the root start step \\(was ${OLD}\\)`));
    assert.notEqual(await sha256(host.binary), await sha256(newBinary), 'the agent could not replace its executable');
    // what systemd does on that exit: ExecStartPre=+… install-update as root, then the agent as its user
    const step = await run(host.binary, ['install-update', '--config', host.config], { env: env() });
    assert.match(step.stderr, new RegExp(`installed the staged argus-agent ${NEW} \\(its sha256 is the server's\\)`));
    assert.equal(await sha256(host.binary), await sha256(newBinary));
    assert.equal((await stat(host.binary)).uid, 0, "root's file still");
    const second = start(host.binary, host.config, env({ INVOCATION_ID: 'test-invocation' }), NOBODY);
    running.push(second);
    await waitFor(async () => (await reported(host.sub)) === NEW, 60_000, 250).catch(() => {
      throw new Error(`never reported ${NEW}:\n${second.output()}`);
    });
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('refuses a download that does not match the offered sha256, and the old binary keeps reporting', async () => {
    // the bytes change under the server's cached hash (same size, same mtime): what a bad disk or
    // a tampering mirror would hand out
    const handle = await open(newBinary, 'r+');
    await handle.write(Buffer.from('corrupted'), 0, 9, 50 * 1024 * 1024);
    await handle.close();
    await utimes(newBinary, MTIME, MTIME);
    const host = await install('corrupted');
    const before = await sha256(host.binary);
    const agent = start(host.binary, host.config, env());
    running.push(agent);
    await waitFor(() => /refused: checksum mismatch/.test(agent.output()), 120_000, 250).catch(() => {
      throw new Error(`no refusal:\n${agent.output()}`);
    });
    const seen = await fixture.db.knex('systems').where({ agent_id: host.sub }).first('last_seen_at');
    // it keeps reporting, as the old version
    await waitFor(
      async () =>
        (await fixture.db.knex('systems').where({ agent_id: host.sub }).first('last_seen_at')).last_seen_at >
        seen.last_seen_at,
      30_000,
      250,
    );
    assert.equal(await reported(host.sub), OLD);
    assert.equal(agent.child.exitCode, null);
    assert.equal(await sha256(host.binary), before, 'its executable is untouched');
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0);
  });
});
