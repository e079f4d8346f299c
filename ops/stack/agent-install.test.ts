/**
 * The one-line installer for real: the console's command (the key piped into
 * `curl -H @-`, the script into `sh -s -- --no-systemd`) inside a container of the offline Debian
 * bookworm image (ops/deploy/offline-images.sh: the curl stand-in, Debian plus curl), downloading the
 * built x86_64 agent from a real Argus (the test server, reached over the host's network). The agent
 * enrols and its system turns ONLINE; the binary installed is the one whose sha256 the server gave,
 * config.yaml is 0600; and a build whose bytes no longer match that sha256 is refused with nothing
 * installed. Then the systemd layout (systemctl stubbed, a real `useradd`) run twice as root with
 * links planted by the agent's account before and between the runs: nothing is written through them,
 * and nothing root runs or reads is the agent's. Needs a Docker engine, like stack.test.ts.
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
import { hostImage, startAgentAsTheUnitSays, startAgentHost, unitLine } from './agent-host.js';
import { agentPingChecks, reportsOf, systemOf, testNetwork } from './agent-host-checks.js';

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
  let key: string;
  /** The systemd hosts' cluster: its agents report every 5 s. */
  let systemdKey: string;
  let admin: Awaited<ReturnType<typeof signedInAs>>;
  let customerId: number;
  const containers: string[] = [];
  const networks: string[] = [];
  /** The console's command (contracts/agents.ts installCommand), with the script's options. */
  const installCommand = (options = '', enrollmentKey = key) =>
    `printf 'Argus-Enrollment-Key: %s\\n' '${enrollmentKey}' | curl -fsSL -H @- '${installUrl}' | sh${options}`;

  /** A container of the Debian image piping the installer into sh, as the README's command does. */
  async function installer(name: string, detach: boolean) {
    const container = `argus-agent-install-${run}-${name}`;
    containers.push(container);
    const command = installCommand(' -s -- --no-systemd');
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
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Container GmbH' });
    customerId = customer.body.id;
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'containers' });
    const systemd = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'systemd hosts' });
    systemdKey = systemd.body.enrollmentKey;
    const fast = { scope: { type: 'cluster', id: systemd.body.id }, key: 'interval', value: '5' };
    assert.equal((await admin.post('/api/agent-settings', fast)).status, 201);
    // what the console shows: PUBLIC_URL is where the test server listens, reachable on the host network
    installUrl = `${fixture.server.url}/api/agent/install.sh`;
    key = cluster.body.enrollmentKey;
  });
  after(async () => {
    for (const container of containers) await docker(['rm', '-f', container]);
    for (const network of networks) await docker(['network', 'rm', network]);
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

  it('run twice as root over links the agent account planted, writes through none; root owns what it runs or reads', async () => {
    const container = `argus-agent-install-${run}-links`;
    containers.push(container);
    const started = await docker(
      ['run', '-d', '--name', container, '--network', 'host', '--entrypoint', 'sleep'].concat([image, 'infinity']),
    );
    assert.equal(started.code, 0, started.stderr);
    const sh = async (command: string, user = 'root') =>
      docker(['exec', '--user', user, container, 'sh', '-c', command], { timeoutMs: 300_000 });
    const ok = async (command: string, user = 'root') => {
      const result = await sh(command, user);
      assert.equal(result.code, 0, `${command}\n${result.stdout}${result.stderr}`);
      return result.stdout.trim();
    };
    // systemd stubbed (no init in a container); a root-only file and directory for the links to name; an
    // older installer's layout, where the agent's account owned the configuration and executable directories
    await ok(
      [
        'printf \'#!/bin/sh\\n[ "$1" != is-active ]\\n\' >/usr/local/sbin/systemctl && chmod 755 /usr/local/sbin/systemctl',
        'echo "root only" >/root/secret && chmod 600 /root/secret && mkdir -m 700 /root/private',
        'useradd --system --no-create-home --shell /usr/sbin/nologin argus-agent',
        'mkdir -p /etc/argus-agent /usr/local/lib/argus-agent',
        'chown argus-agent /etc/argus-agent /usr/local/lib/argus-agent',
      ].join(' && '),
    );
    const plant = () =>
      sh(
        [
          'ln -sf /root/secret /etc/argus-agent/config.yaml.new',
          'ln -sf /root/secret /etc/argus-agent/config.yaml',
          'ln -sf /root/private /usr/local/lib/argus-agent/argus-agent.new',
          'printf "#!/bin/sh\\nid\\n" >/tmp/evil && chmod 755 /tmp/evil',
          'mv -f /tmp/evil /usr/local/lib/argus-agent/argus-agent',
        ].join('; '),
        'argus-agent',
      );
    const unharmed = async () => {
      assert.equal(await ok('cat /root/secret'), 'root only');
      assert.equal(await ok('stat -c "%U %a" /root/secret /root/private'), 'root 600\nroot 700');
      assert.equal(
        await ok(
          'stat -c "%n %F %U:%G %a" /etc/argus-agent /etc/argus-agent/config.yaml /etc/argus-agent/checks.d ' +
            '/usr/local/lib/argus-agent /usr/local/lib/argus-agent/argus-agent',
        ),
        [
          '/etc/argus-agent directory root:argus-agent 750',
          '/etc/argus-agent/config.yaml regular file root:argus-agent 640',
          // the script checks' directory: root's alone, so the agent account cannot add a program to it
          '/etc/argus-agent/checks.d directory root:root 755',
          '/usr/local/lib/argus-agent directory root:root 755',
          '/usr/local/lib/argus-agent/argus-agent regular file root:root 755',
        ].join('\n'),
      );
      assert.equal(
        await ok('ls -A /etc/argus-agent /usr/local/lib/argus-agent'),
        '/etc/argus-agent:\nchecks.d\nconfig.yaml\n\n/usr/local/lib/argus-agent:\nargus-agent',
      );
      assert.match(await ok('grep -c "^webhook_secret: " /etc/argus-agent/config.yaml'), /^1$/);
      assert.match(await ok('cat /etc/systemd/system/argus-agent.service'), /^User=argus-agent$/m);
    };

    assert.equal((await plant()).code, 0, 'the older layout let the agent account plant links');
    const first = await sh(installCommand());
    assert.equal(first.code, 0, first.stdout + first.stderr);
    await unharmed();
    // now nothing of it is the agent account's: planting fails, and a second run finds everything as it left it
    const refused = await plant();
    assert.match(
      refused.stderr,
      /ln: failed to create symbolic link '\/etc\/argus-agent\/config\.yaml\.new': Permission denied/,
    );
    assert.match(
      refused.stderr,
      /mv: cannot move '\/tmp\/evil' to '\/usr\/local\/lib\/argus-agent\/argus-agent': Permission denied/,
    );
    const second = await sh(installCommand());
    assert.equal(second.code, 0, second.stdout + second.stderr);
    await unharmed();
    // the README's command: the agent as its own user reads its configuration
    assert.match(
      await ok(
        'runuser -u argus-agent -- argus-agent --version && runuser -u argus-agent -- head -n 1 /etc/argus-agent/config.yaml',
      ),
      /^\d+\.\d+\.\d+\n# Argus agent configuration, written by the installer/,
    );
  });

  /** A host with Docker where the installer ran (with its options) and the agent runs as the unit says. */
  async function installedHost(role: string, options: string) {
    const container = `argus-agent-install-${run}-${role}`;
    containers.push(container);
    const host = await startAgentHost(await hostImage(image), container);
    await host.sh(installCommand(` -s -- ${options}`.trimEnd(), systemdKey));
    const status = await startAgentAsTheUnitSays(host);
    const system = await systemOf(fixture.db.knex, host.hostname, async () => host.log());
    return { host, status, system };
  }

  it('--docker: the agent, as its own account in the socket’s group, reads the real engine’s containers; its ping checks run', async () => {
    const started = performance.now();
    const { host, status, system } = await installedHost('docker', '--docker');
    assert.equal(await unitLine(host, 'SupplementaryGroups'), 'docker');
    const [uid, groups] = await Promise.all([
      host.sh('id -u argus-agent'),
      host.sh('getent group docker | cut -d: -f3'),
    ]);
    assert.match(status, new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, 'm'), 'not root');
    assert.match(status, new RegExp(`^Groups:\\s+${groups}\\s*$`, 'm'), 'the docker group alone');
    // the engine's containers, read through its socket: this host's own container among them
    const running = async () =>
      (
        await fixture.db
          .knex('metric_latest')
          .where({ system_id: system.id, name: 'container.running', instance: host.container })
          .first()
      )?.value;
    await waitFor(async () => (await running()) === 1, 60_000, 500).catch(async () => {
      throw new Error(`the agent sent no container of the engine; it said:\n${await host.log()}`);
    });
    figure(
      `installer --docker to the engine's containers stored in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // it may say how it reads the figures (from the engine when it runs in another pid namespace),
    // never that it cannot see the engine
    assert.doesNotMatch(await host.log(), /containers: (no container engine|may not open|the container engine)/);

    // ping as the agent's account: a neighbour that answers, and an address of the test's own network nobody holds
    const network = await testNetwork(`argus-agent-install-${run}`);
    networks.push(network.name);
    const pinged = await agentPingChecks(admin, { customerId, system }, { up: '127.0.0.1', down: network.unheld });
    assert.equal(pinged.up.state, 'UP', JSON.stringify(pinged.up.results));
    assert.equal(pinged.up.lastResult?.packetLossPct, 0);
    assert.equal(typeof pinged.up.lastResult?.responseMs, 'number');
    assert.equal(pinged.down.state, 'DOWN', JSON.stringify(pinged.down.results));
    assert.deepEqual([pinged.down.lastResult?.reason, pinged.down.lastResult?.packetLossPct], ['no reply', 100]);
    figure(
      `agent ping checks: UP after ${pinged.seconds.up.toFixed(0)} s, DOWN after ${pinged.seconds.down.toFixed(0)} s`,
    );
  });

  it('without --docker: the agent says once that it may not open the socket, sends no container, and keeps reporting', async () => {
    const { host, system } = await installedHost('no-docker', '');
    assert.equal(await unitLine(host, 'SupplementaryGroups'), '');
    const said =
      /containers: may not open \/var\/run\/docker\.sock \(install with --docker, or point containers\.socket at a proxy\); container series left out/;
    await waitFor(async () => said.test(await host.log()), 30_000, 500);
    const first = await reportsOf(fixture.db.knex, system.id);
    await waitFor(async () => (await reportsOf(fixture.db.knex, system.id)) >= first + 3, 60_000, 1000).catch(
      async () => {
        throw new Error(`the agent stopped reporting after ${first} reports; it said:\n${await host.log()}`);
      },
    );
    assert.equal((await host.log()).match(new RegExp(said.source, 'g'))?.length, 1, await host.log());
    const containers = await fixture.db
      .knex('metric_latest')
      .where({ system_id: system.id })
      .andWhere('name', 'like', 'container.%');
    assert.deepEqual(containers, []);
    assert.equal((await fixture.db.knex('systems').where({ id: system.id }).first()).status, 'ONLINE');
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
