/**
 * The one-line installer for real (issue 12 item 6): `curl … /api/agent/install.sh?key=… | sh -s --
 * --no-systemd` inside a container of the offline Debian bookworm image (ops/deploy/offline-images.sh:
 * the curl stand-in, Debian plus curl), downloading the built x86_64 agent from a real Argus (the test
 * server, reached over the host's network). The agent enrols and its system turns ONLINE; the binary
 * installed is the one whose sha256 the server gave, config.yaml is 0600; and a build whose bytes no
 * longer match that sha256 is refused with nothing installed. Needs a Docker engine, like stack.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { waitFor } from '../../backend/src/testing/net.js';
import { buildAgent } from '../../agent/build/build-agent.js';
import { docker, figure, offlineImages, requireEngine } from './deployment.js';

const WEBHOOK_SECRET = 'agent-install-container-webhook-secret-01';
const dist = await mkdtemp(path.join(tmpdir(), 'argus-agent-install-'));
// a whole second, so the test can put the build's mtime back exactly after corrupting it
const MTIME = new Date('2026-11-26T00:00:00Z');
const run = randomBytes(4).toString('hex');

describe('the agent installer in a Debian container (--no-systemd)', { timeout: 1_200_000 }, () => {
  const fixture = useTestServer({ WEBHOOK_SECRET, AGENT_DIST_DIR: dist });
  let image: string;
  let binary: string;
  let installUrl: string;
  const containers: string[] = [];

  /** A container of the Debian image piping the installer into sh, as the README's command does. */
  async function installer(name: string, detach: boolean) {
    const container = `argus-agent-install-${run}-${name}`;
    containers.push(container);
    const command = `curl -fsSL '${installUrl}' | sh -s -- --no-systemd`;
    return docker(
      ['run', ...(detach ? ['-d'] : []), '--name', container, '--network', 'host', '--user', '0'].concat([
        '--entrypoint',
        'sh',
        image,
        '-c',
        command,
      ]),
      { timeoutMs: 300_000 },
    ).then((result) => ({ ...result, container }));
  }

  before(async () => {
    await requireEngine();
    image = (await offlineImages())['ARGUS_SCHEDULER_IMAGE'] as string; // Debian bookworm + curl
    const { dir } = await buildAgent({ outDir: dist, arches: ['x86_64'] });
    binary = path.join(dir, 'argus-agent-linux-x86_64');
    await utimes(binary, MTIME, MTIME);
    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Container GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'containers' });
    // what the console shows: PUBLIC_URL is where the test server listens, reachable on the host network
    installUrl = `${fixture.server.url}/api/agent/install.sh?key=${cluster.body.enrollmentKey}`;
  });
  after(async () => {
    for (const container of containers) await docker(['rm', '-f', container]);
    await rm(dist, { recursive: true, force: true });
  });

  it('installs the checked build and a 0600 config, runs the agent, and the system appears ONLINE', async () => {
    const started = performance.now();
    const { code, stderr, container } = await installer('ok', true);
    assert.equal(code, 0, stderr);
    const logs = async () => {
      const result = await docker(['logs', container]);
      return result.stdout + result.stderr;
    };
    await waitFor(
      async () => (await fixture.db.knex('systems').where({ status: 'ONLINE' }).first()) !== undefined,
      180_000,
      500,
    ).catch(async () => {
      throw new Error(`no system came ONLINE; the container said:\n${await logs()}`);
    });
    figure(`installer to ONLINE in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const system = await fixture.db.knex('systems').where({ status: 'ONLINE' }).first();
    const manifest = JSON.parse(await readFile(path.join(path.dirname(binary), 'manifest.json'), 'utf8'));
    assert.equal(system.agent_version, manifest.version);
    assert.equal(system.arch, 'x86_64');
    assert.match(await logs(), /downloading argus-agent .*\n.*running it in the foreground/s);

    const inside = async (command: string) => {
      const result = await docker(['exec', container, 'sh', '-c', command]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout.trim();
    };
    // the file installed is the build the server described, and the command links to it
    assert.equal(
      (await inside('sha256sum /usr/local/lib/argus-agent/argus-agent')).split(' ')[0],
      manifest.files.x86_64.sha256,
    );
    assert.equal(await inside('readlink /usr/local/bin/argus-agent'), '../lib/argus-agent/argus-agent');
    assert.equal(await inside('stat -c %a /etc/argus-agent/config.yaml'), '600');
    assert.equal(await inside('stat -c %a /etc/argus-agent'), '700');
    assert.match(await inside('argus-agent --version'), new RegExp(`^${manifest.version}$`));
    const latest = await fixture.db.knex('metric_latest').where({ system_id: system.id }).pluck('name');
    for (const name of ['cpu.usage_pct', 'mem.used_pct', 'uptime.s']) assert.ok(latest.includes(name), name);
  });

  it('refuses a build whose bytes do not match the sha256 the server gives, installing nothing', async () => {
    // the bytes change under the server's cached hash (same size, same mtime)
    const handle = await open(binary, 'r+');
    await handle.write(Buffer.from('corrupted'), 0, 9, 40 * 1024 * 1024);
    await handle.close();
    await utimes(binary, MTIME, MTIME);
    const { code, stdout, stderr, container } = await installer('corrupted', false);
    assert.equal(code, 1, stdout);
    assert.match(stderr, /argus-agent install: checksum mismatch for .* \(expected [0-9a-f]{64}, got [0-9a-f]{64}\)/);
    const listed = await docker(['cp', `${container}:/usr/local/lib/argus-agent/argus-agent`, '-']);
    assert.notEqual(listed.code, 0, 'no agent installed');
    const config = await docker(['cp', `${container}:/etc/argus-agent/config.yaml`, '-']);
    assert.notEqual(config.code, 0, 'no config written');
  });
});
