/**
 * Containers of a real Podman: Debian's podman serves its Docker-compatible API (`podman system
 * service`) on a socket this test names, with storage of its own in a temporary directory; the tiny
 * image (container-engine.ts) is imported with `podman import`, as no registry is reachable. The
 * agent's setting `containers.socket`, made through the API as an admin would, points
 * `argus-agent run`'s loop at it, and the real server stores what the agent read: a busy container
 * under a CPU and memory limit (running, its CPU share and memory) and one that has exited.
 */
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { startInProcessAgent } from './in-process-agent.js';
import { tinyRootTarball } from './container-engine.js';
import { until } from './link.js';

const exec = promisify(execFile);
const WEBHOOK_SECRET = 'podman-containers-webhook-secret-0123456789';
const tag = randomBytes(3).toString('hex');
const name = (role: string) => `argus-pm-${tag}-${role}`;
const IMAGE = 'localhost/argus-test/tiny:1';

describe('containers of a real Podman through its Docker-compatible socket', { timeout: 180_000 }, () => {
  const fixture = useTestServer({ WEBHOOK_SECRET });
  let dir: string;
  let socket: string;
  let service: ChildProcess | undefined;
  let enrollment: string;

  /** podman with this test's own storage: nothing of the machine's containers or images is touched. */
  const podman = async (...args: string[]) => {
    const global = ['--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--cgroup-manager', 'cgroupfs'];
    const { stdout } = await exec('podman', [...global, ...args], { timeout: 60_000 }).catch((error) => {
      throw new Error(`podman ${args.join(' ')}: ${error.stderr || error.message}`);
    });
    return stdout.trim();
  };

  before(async () => {
    await exec('podman', ['--version']).catch(() => {
      throw new Error('podman is not installed: ops/test/prepare-machine.sh installs it (apt-get install -y podman)');
    });
    dir = await mkdtemp(join(tmpdir(), 'argus-podman-'));
    socket = join(dir, 'podman.sock');
    const global = ['--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--cgroup-manager', 'cgroupfs'];
    service = spawn('podman', [...global, 'system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
    await until(
      'the Podman socket',
      () =>
        access(socket).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    await tinyRootTarball(join(dir, 'tiny.tar'));
    await podman('import', '--change', 'ENV PATH=/bin', join(dir, 'tiny.tar'), IMAGE);
    // no network of its own (no bridge, no firewall rules); limits under the machine's own: Podman
    // raises them by default, which a sandbox without CAP_SYS_RESOURCE refuses
    const run = (role: string, ...args: string[]) =>
      podman(
        ...['run', '-d', '--name', name(role), '--network', 'none'],
        ...['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096', ...args],
      );
    await run('busy', '--cpus', '0.5', '--memory', '64m', IMAGE, 'sh', '-c', 'while :; do :; done');
    await run('done', IMAGE, 'sh', '-c', 'exit 0');

    const admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const customer = await admin.post('/api/customers', { name: 'Podman GmbH' });
    const cluster = await admin.post('/api/clusters', { customerId: customer.body.id, name: 'podman-hosts' });
    enrollment = cluster.body.enrollmentKey;
    const setting = { scope: { type: 'cluster', id: cluster.body.id }, key: 'containers.socket', value: socket };
    assert.equal((await admin.post('/api/agent-settings', setting)).status, 201);
  });
  after(async () => {
    if (dir) await podman('rm', '-f', '-t', '0', name('busy'), name('done')).catch(() => undefined);
    await stopService(service);
    if (dir) await removeStorage(dir);
  });

  it('reads the containers Podman runs: name, state, CPU share of its limit and memory, stored by the server', async () => {
    const { running, stop, logs } = await startInProcessAgent({
      serverUrl: fixture.server.url,
      webhookSecret: WEBHOOK_SECRET,
      enrollment,
      dir,
    });
    const latest = async (metric: string, role: string) =>
      (
        await fixture.db
          .knex('metric_latest')
          .where({ name: metric, instance: name(role) })
          .first()
      )?.value as number | undefined;
    const started = performance.now();
    try {
      // CPU is a difference of two looks: it comes with the second collection that reads the engine
      await until(
        'the Podman containers in the server',
        async () => (await latest('container.cpu_pct', 'busy')) !== undefined,
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; agent log: ${logs.join(' | ')}`);
      });
    } finally {
      stop.abort();
      await running;
    }
    process.stdout.write(
      `podman: containers stored ${((performance.now() - started) / 1000).toFixed(1)} s after the agent started\n`,
    );
    assert.equal(await latest('container.running', 'busy'), 1);
    assert.equal(await latest('container.running', 'done'), 0);
    assert.equal(await latest('container.exited_unexpectedly', 'done'), 0, 'exit 0 before the agent saw it run');
    assert.equal(await latest('container.mem_limit_bytes', 'busy'), 64 * 1024 * 1024);
    assert.ok(((await latest('container.mem_used_bytes', 'busy')) ?? 0) > 0);
    const cpu = (await latest('container.cpu_pct', 'busy')) ?? -1;
    assert.ok(cpu > 5 && cpu <= 115, `a busy loop under --cpus 0.5: ${cpu} % of its limit`);
    assert.ok(((await latest('container.uptime_s', 'busy')) ?? -1) >= 0);
    assert.equal(await latest('container.cpu_pct', 'done'), undefined, 'no figures for a container not running');
    // before the first answer brought the settings, the agent looked at the default socket, and said so
    assert.ok(!logs.some((line) => line.includes(socket)), logs.join('\n'));
  });
});

/** Stops the API service and waits for it: it unmounts its storage on the way out. */
async function stopService(service: ChildProcess | undefined): Promise<void> {
  if (!service || service.exitCode !== null || service.signalCode !== null) return;
  const exited = new Promise((resolve) => service.once('exit', resolve));
  service.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
}

/**
 * Removes the test's storage: Podman's overlay driver mounts its own directory (and each container's
 * layers), a podman command cut off by its time limit leaves them behind, and a podman process still
 * running mounts them again; so every process working in this directory is stopped, the mounts under
 * it are detached (deepest first) and the removal retried for a while. A directory that still cannot
 * be removed is left and said, not failed: what the test checks has been checked.
 */
async function removeStorage(dir: string): Promise<void> {
  await exec('pkill', ['-KILL', '-f', dir]).catch(() => undefined);
  for (let attempt = 1; ; attempt++) {
    const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
    const mounts = mountinfo
      .split('\n')
      .map((line) => line.split(' ')[4] ?? '')
      .filter((point) => point.startsWith(`${dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const point of mounts) await exec('umount', ['-l', point]).catch(() => undefined);
    try {
      await rm(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      if (attempt >= 30) {
        console.log(`podman test: ${dir} left behind: ${(error as Error).message}`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
