/**
 * The single executables of `npm run build:agent`, built for real: the x86_64 one
 * runs here, the aarch64 one under qemu's user-mode emulation (so a broken arm64 build cannot ship
 * unnoticed); Argus serves them from AGENT_DIST_DIR with the manifest's sha256; and the built x86_64
 * binary enrols this machine against a real server, whose system then shows real values.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { agentBodySchema } from '../../contracts/agent-report.js';
import { useTestServer } from '../../backend/src/testing/app.js';
import { Client, signedInAs } from '../../backend/src/testing/http.js';
import { buildAgent } from '../build/build-agent.js';
import { until } from './link.js';

const run = promisify(execFile);
const WEBHOOK_SECRET = 'agent-binary-webhook-secret-0123456789abc';
const outDir = await mkdtemp(join(tmpdir(), 'argus-agent-dist-'));

describe('the built argus-agent executables', { timeout: 600_000 }, () => {
  let dir: string;
  let version: string;
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_DIST_DIR: outDir });
  before(async () => {
    ({ dir, version } = await buildAgent({ outDir }));
  });
  after(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it('x86_64: --version and collect, a report the server accepts as it is', async () => {
    const binary = join(dir, 'argus-agent-linux-x86_64');
    assert.equal((await run(binary, ['--version'])).stdout.trim(), version);
    const body = agentBodySchema.parse(JSON.parse((await run(binary, ['collect'])).stdout));
    assert.equal(body.agent.arch, 'x86_64');
    assert.ok(body.reports[0]?.metrics.some((m) => m.name === 'cpu.usage_pct'));
  });

  it('aarch64, under qemu-user-static: --version and collect', async () => {
    const binary = join(dir, 'argus-agent-linux-aarch64');
    assert.equal((await run('qemu-aarch64-static', [binary, '--version'])).stdout.trim(), version);
    const body = agentBodySchema.parse(JSON.parse((await run('qemu-aarch64-static', [binary, 'collect'])).stdout));
    assert.equal(body.agent.arch, 'aarch64');
  });

  it('is offered and served by Argus with the sha256 of its manifest', async () => {
    const anonymous = new Client(fixture.server.url);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      files: Record<string, { sha256: string }>;
    };
    for (const arch of ['x86_64', 'aarch64']) {
      const offer = await anonymous.get(`/api/agent/version?arch=${arch}`);
      assert.equal(offer.status, 200);
      assert.equal(offer.body.version, version);
      assert.equal(offer.body.sha256, manifest.files[arch]?.sha256);
      const download = await fetch(new URL(new URL(offer.body.url as string).pathname, fixture.server.url));
      assert.equal(download.status, 200);
      const sha = createHash('sha256')
        .update(Buffer.from(await download.arrayBuffer()))
        .digest('hex');
      assert.equal(sha, offer.body.sha256, 'the bytes served are the bytes built');
    }
  });

  it('enrols this machine with the built binary, and its system shows real values', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Binary GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'built' });
    const config = join(outDir, 'config.yaml');
    const answer = await admin.get(`/api/agent/config?cluster=${cluster.body.id}`);
    await writeFile(config, `${answer.body as string}state_dir: "${join(outDir, 'state')}"\n`, { mode: 0o600 });
    const once = await run(join(dir, 'argus-agent-linux-x86_64'), ['once', '--config', config]);
    assert.equal(JSON.parse(once.stdout).accepted, 1);
    const system = await fixture.db.knex('systems').first();
    assert.equal(system.status, 'ONLINE');
    assert.equal(system.arch, 'x86_64');
    const latest = await fixture.db.knex('metric_latest').where({ system_id: system.id }).select('name', 'instance');
    for (const [name, instance] of [
      ['cpu.usage_pct', ''],
      ['mem.used_pct', ''],
      ['disk.used_pct', '/'],
      ['uptime.s', ''],
    ])
      assert.ok(
        latest.some((row) => row.name === name && row.instance === instance),
        `${name} ${instance}`,
      );
  });

  /**
   * A state directory holding an identity of its own: the agents of these tests must not be this
   * machine (its machine id already enrolled above, in another customer's cluster: refused).
   */
  async function stateDir(name: string): Promise<string> {
    const state = join(outDir, name);
    await mkdir(state, { recursive: true, mode: 0o700 });
    await writeFile(join(state, 'identity.json'), JSON.stringify({ sub: randomUUID(), agentKey: null }), {
      mode: 0o600,
    });
    return state;
  }

  /** `argus-agent run` of the built x86_64 binary, its output gathered; stopped by the test. */
  function runService(config: string): { child: ChildProcess; output: () => string } {
    const child = spawn(join(dir, 'argus-agent-linux-x86_64'), ['run', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output };
  }
  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });

  it('run with a wrong secret: says what to check, keeps running, and does not hammer the server', async () => {
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Wrong Secret GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'refused' });
    const answer = (await admin.get(`/api/agent/config?cluster=${cluster.body.id}`)).body as string;
    const config = join(outDir, 'wrong.yaml');
    const wrong = answer.replace(/^webhook_secret: .*$/m, 'webhook_secret: "not-the-secret-of-this-server-0123456789"');
    await writeFile(config, `${wrong}state_dir: "${await stateDir('wrong-state')}"\ninterval: 5\n`, { mode: 0o600 });
    const service = runService(config);
    try {
      await until('the refusal', async () => /check webhook_secret/.test(service.output()), 30_000);
      // three intervals later: still running, and it has not asked again (it waits 5 minutes)
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      assert.equal(service.child.exitCode, null, 'no crash loop: the agent keeps running');
      assert.equal(service.output().match(/refused this agent/g)?.length, 1, service.output());
      assert.equal(await fixture.db.knex('systems').where({ cluster_id: cluster.body.id }).first(), undefined);
    } finally {
      await stop(service.child);
    }
  });
});
