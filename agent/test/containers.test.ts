/**
 * The containers collector against the real Docker engine the suites use: containers started here
 * from a local image (one turning unhealthy, one restarting in a loop, one exiting on its own, one
 * stopped by the test, one busy under CPU and memory limits), read through the engine's socket and
 * through a second path to it (as a Podman socket would be named); then an engine that is missing,
 * refusing or silent: no container series, one line in the log, and the collection within its budget.
 * Beside the series, each container's image for the report's `containers`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { containersCollector, imageOf } from '../src/collectors/containers.js';
import type { Sample } from '../src/sample.js';
import { docker, ENGINE_SOCKET, ensureTinyImage, TINY_IMAGE } from './container-engine.js';

const exec = promisify(execFile);
const prefix = `argus-ct-${randomBytes(3).toString('hex')}`;
const name = (role: string) => `${prefix}-${role}`;
const FROM_FILES = /^containers: figures read from the containers' cgroup v[12] files and \/proc\/<pid>\/net\/dev$/;
const value = (samples: Sample[], metric: string, role: string) =>
  samples.find((s) => s.name === metric && s.instance === name(role))?.value;

/** A unix socket passing every connection on to the engine, keeping each request's path. */
async function countingProxy(path: string) {
  const paths: string[] = [];
  const server = net.createServer((client) => {
    const engine = net.connect(ENGINE_SOCKET);
    client.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/^GET (\S+) HTTP/gm)) paths.push(match[1] as string);
    });
    client.pipe(engine).pipe(client);
    const end = () => (client.destroy(), engine.destroy());
    client.on('error', end).on('close', end);
    engine.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, paths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('containers from the Docker engine', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-containers-'));
    await ensureTinyImage();
    const run = (role: string, ...args: string[]) => docker('run', '-d', '--name', name(role), ...args);
    // the ones with a short window last: a `docker run` takes 1–2 s on a loaded machine, and the first
    // collection must see `health` healthy (its first 6 s) and `crash` running (its first 4 s)
    await run('stopped', TINY_IMAGE, 'sleep', '600');
    await run('busy', '--cpus', '0.5', '--memory', '64m', TINY_IMAGE, 'sh', '-c', 'while :; do :; done');
    await run('loop', '--restart', 'always', TINY_IMAGE, 'sh', '-c', 'sleep 1; exit 3');
    await run(
      'health',
      ...['--health-cmd', 'test -f /tmp/ok', '--health-interval', '1s', '--health-retries', '1'],
      ...[TINY_IMAGE, 'sh', '-c', ': > /tmp/ok; sleep 6; rm /tmp/ok; sleep 600'],
    );
    await run('crash', TINY_IMAGE, 'sh', '-c', 'sleep 4; exit 2');
  });
  after(async () => {
    const ids = await docker('ps', '-aq', '--filter', `name=${prefix}`);
    if (ids) await docker('rm', '-f', ...ids.split('\n'));
    await rm(dir, { recursive: true, force: true });
  });

  it('reads state, health, restarts, exits and figures, and tells a requested stop from a crash', async () => {
    const logs: string[] = [];
    const collect = containersCollector({
      settings: () => ({ 'containers.socket': ENGINE_SOCKET, 'containers.restart_window': '5' }),
      log: (line) => logs.push(line),
      hostCpus: async () => 2,
    });
    const seen = { healthy: false, unhealthy: false, loop: false, crash: false, stopped: false };
    let samples: Sample[] = [];
    let stopAsked = false;
    const deadline = Date.now() + 60_000;
    while (Object.values(seen).includes(false) && Date.now() < deadline) {
      const started = performance.now();
      samples = await collect();
      assert.ok(performance.now() - started < 9000, 'a collection stays within its budget');
      if (!stopAsked && value(samples, 'container.running', 'stopped') === 1) {
        await docker('stop', '-t', '1', name('stopped'));
        stopAsked = true;
      }
      seen.healthy ||= value(samples, 'container.healthy', 'health') === 1;
      seen.unhealthy ||= seen.healthy && value(samples, 'container.healthy', 'health') === 0;
      seen.loop ||= (value(samples, 'container.restarts_recent', 'loop') ?? 0) >= 3;
      seen.crash ||= value(samples, 'container.exited_unexpectedly', 'crash') === 1;
      seen.stopped ||= stopAsked && value(samples, 'container.running', 'stopped') === 0;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    assert.deepEqual(seen, { healthy: true, unhealthy: true, loop: true, crash: true, stopped: true });
    assert.equal(value(samples, 'container.exited_unexpectedly', 'stopped'), 0, 'stopped on request: no crash');
    assert.equal(value(samples, 'container.running', 'crash'), 0);
    assert.ok((value(samples, 'container.restarts', 'loop') ?? 0) >= 3, 'the engine’s own restart count');
    assert.equal(value(samples, 'container.mem_limit_bytes', 'busy'), 64 * 1024 * 1024);
    // a share of its limit (0.5 CPU); how much of it the loop gets depends on this shared machine's load
    const cpu = value(samples, 'container.cpu_pct', 'busy') ?? -1;
    assert.ok(cpu > 5 && cpu <= 115, `a busy loop under --cpus 0.5: ${cpu} % of its limit`);
    assert.ok((value(samples, 'container.uptime_s', 'busy') ?? -1) >= 1);
    for (const metric of ['container.net_rx_bps', 'container.disk_read_bytes_ps', 'container.mem_pct'])
      assert.notEqual(value(samples, metric, 'busy'), undefined, metric);
    assert.equal(value(samples, 'container.cpu_pct', 'crash'), undefined, 'no figures for a container not running');
    assert.equal(logs.length, 1, logs.join('\n'));
    assert.match(logs[0] as string, FROM_FILES, 'which way the figures come, said once');

    // removed on purpose: forgotten at once, its series are no longer sent
    await docker('rm', '-f', name('crash'));
    samples = await collect();
    assert.equal(value(samples, 'container.running', 'crash'), undefined);
    assert.equal(value(samples, 'container.running', 'busy'), 1);
  });

  it("reads running containers' figures from their cgroup files: no stats request, the same series", async () => {
    const proxy = await countingProxy(join(dir, 'counted.sock'));
    try {
      const options = { settings: () => ({ 'containers.socket': proxy.path }), hostCpus: async () => 2 };
      const logs: string[] = [];
      const collect = containersCollector({ ...options, log: (line) => logs.push(line) });
      await collect();
      const ip = await docker(
        'inspect',
        '-f',
        '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
        name('busy'),
      );
      await exec('ping', ['-c', '3', '-i', '0.2', '-W', '1', ip]);
      const samples = await collect();
      assert.equal(value(samples, 'container.mem_limit_bytes', 'busy'), 64 * 1024 * 1024, 'its --memory');
      assert.ok((value(samples, 'container.mem_used_bytes', 'busy') ?? 0) > 0);
      assert.ok((value(samples, 'container.cpu_pct', 'busy') ?? 0) > 0, 'its busy loop');
      assert.ok((value(samples, 'container.net_rx_bps', 'busy') ?? 0) > 0, 'the pings it received');
      assert.equal(value(samples, 'container.disk_read_bytes_ps', 'busy'), 0);
      assert.deepEqual(
        proxy.paths.filter((path) => path.includes('/stats')),
        [],
        'no stats request',
      );
      assert.ok(
        proxy.paths.some((path) => path.startsWith('/containers/json')),
        'the list came through the proxy',
      );
      assert.equal(logs.length, 1, logs.join('\n'));
      assert.match(logs[0] as string, FROM_FILES);

      // files not readable (as from another pid namespace): the engine's stats, the same series
      proxy.paths.length = 0;
      const fallback: string[] = [];
      const asking = containersCollector({ ...options, log: (line) => fallback.push(line), read: () => null });
      await asking();
      const asked = await asking();
      assert.equal(value(asked, 'container.mem_limit_bytes', 'busy'), 64 * 1024 * 1024);
      assert.ok((value(asked, 'container.cpu_pct', 'busy') ?? 0) > 0);
      assert.ok(
        proxy.paths.some((path) => path.includes(`/stats?`)),
        'asked of the engine',
      );
      assert.match(
        fallback.join('\n'),
        /^containers: figures asked of the engine, a stats request per running container \(/,
      );
      const metrics = (list: Sample[]) =>
        list
          .filter((s) => s.instance === name('busy'))
          .map((s) => s.name)
          .sort();
      assert.deepEqual(metrics(samples), metrics(asked), 'the same series either way');
    } finally {
      await proxy.close();
    }
  });

  it('reads the engine through another socket path (a Podman socket is set the same way)', async () => {
    const path = join(dir, 'podman.sock');
    await symlink(ENGINE_SOCKET, path);
    const collect = containersCollector({ settings: () => ({ 'containers.socket': path }), log: () => undefined });
    assert.equal(value(await collect(), 'container.running', 'busy'), 1);
    const off = containersCollector({ settings: () => ({ 'containers.socket': 'off' }), log: assert.fail });
    assert.deepEqual(await off(), []);
    assert.equal(off.described(), undefined, 'no engine asked: the report says nothing of containers');
  });

  it("describes each listed container with the engine's image name, running or not", async () => {
    const collect = containersCollector({
      settings: () => ({ 'containers.socket': ENGINE_SOCKET }),
      log: () => undefined,
    });
    assert.equal(collect.described(), undefined, 'nothing before the first collection');
    await collect();
    const mine = (collect.described() ?? []).filter((c) => c.name.startsWith(prefix));
    assert.deepEqual(
      mine.map((c) => c.name),
      ['busy', 'health', 'loop', 'stopped'].map(name),
    );
    for (const container of mine) assert.equal(container.image, TINY_IMAGE, container.name);
  });

  it('leaves the series out and says so once when the socket is missing, refuses, or never answers', async () => {
    const file = join(dir, 'not-a-socket');
    await writeFile(file, '');
    const silentPath = join(dir, 'silent.sock');
    const silent = net.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(silentPath, resolve));
    try {
      for (const [socket, says] of [
        [join(dir, 'missing.sock'), /no container engine socket at .*missing\.sock/],
        [file, /refuses connections/],
        [silentPath, /did not answer/],
      ] as const) {
        const logs: string[] = [];
        const collect = containersCollector({
          settings: () => ({ 'containers.socket': socket }),
          log: (l) => logs.push(l),
        });
        for (let i = 0; i < 2; i += 1) {
          const started = performance.now();
          assert.deepEqual(await collect(), []);
          assert.ok(performance.now() - started < 9000);
          assert.equal(collect.described(), undefined, 'an engine that does not answer describes no container');
        }
        assert.equal(logs.length, 1, logs.join('\n'));
        assert.match(logs[0] as string, says);
      }
    } finally {
      silent.close();
    }
  });
});

describe("a container's image in the report", () => {
  it('cuts an image name to what a report may carry and drops control characters', () => {
    assert.equal(
      imageOf({ Id: 'a', Image: 'registry.example:5000/team/app:1.2@sha256:ab' }),
      'registry.example:5000/team/app:1.2@sha256:ab',
    );
    assert.equal(imageOf({ Id: 'a' }), '');
    assert.equal(imageOf({ Id: 'a', Image: 'app\u0007:1' }), 'app:1');
    const long = imageOf({ Id: 'a', Image: 'x'.repeat(600) });
    assert.equal(long.length, 512);
    assert.ok(long.endsWith('…'));
  });
});
