/**
 * Disks in a Docker container: the mount table recorded in a real container of the test engine
 * (fixtures/docker-bind-mounts.json: a file and a directory bind-mounted, the engine's own
 * /etc/hosts, /etc/resolv.conf and /etc/hostname), and `argus-agent collect` run from the source in
 * such a container (the offline Node image that ops/deploy/offline-images.sh builds).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { disksCollector } from '../src/collectors/disks.js';
import type { Sample } from '../src/sample.js';
import { REPO_ROOT } from '../../ops/deploy/support.js';
import { docker, offlineImages, requireEngine } from '../../ops/stack/deployment.js';
import { fixtureHost, loadFixture } from './fixture-host.js';

const BIND_MOUNTED_FILES = ['/etc/app.conf', '/etc/hosts', '/etc/resolv.conf', '/etc/hostname'];
const disksOf = (samples: Sample[]) =>
  [...new Set(samples.filter((s) => s.name === 'disk.used_pct').map((s) => s.instance))].sort();

describe('disks in a recorded Docker container', () => {
  it('reports the overlay root and the bind-mounted directory, not the bind-mounted files', async () => {
    const samples = await disksCollector(fixtureHost(loadFixture('docker-bind-mounts')))();
    assert.deepEqual(disksOf(samples), ['/', '/srv/data']);
    // the root's figures are its statfs answer, as df inside the container shows them
    const root = samples.find((s) => s.name === 'disk.used_pct' && s.instance === '/');
    assert.equal(root?.value, 26.1);
    assert.equal(samples.find((s) => s.name === 'disk.readonly' && s.instance === '/')?.value, 0);
  });
});

describe('argus-agent collect in a container of the test engine', () => {
  let dir: string;
  let nodeImage: string;
  before(async () => {
    await requireEngine();
    const images = await offlineImages();
    nodeImage = images['ARGUS_NODE_IMAGE'] ?? assert.fail('offline-images.sh names no ARGUS_NODE_IMAGE');
    dir = await mkdtemp(path.join(os.tmpdir(), 'argus-container-disks-'));
    await writeFile(path.join(dir, 'app.conf'), 'setting = 1\n');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports the container root and a bind-mounted directory as disks, bind-mounted files not', async () => {
    // the checkout at its own path, so node_modules' links resolve; the agent runs from its source
    const ran = await docker(
      [
        'run',
        '--rm',
        ...['-v', `${REPO_ROOT}:${REPO_ROOT}:ro`, '-w', REPO_ROOT],
        ...['-v', `${path.join(dir, 'app.conf')}:/etc/app.conf:ro`, '-v', `${dir}:/srv/data`],
        nodeImage,
        ...['node', '--import', 'tsx', 'agent/src/main.ts', 'collect'],
      ],
      { timeoutMs: 120_000 },
    );
    assert.equal(ran.code, 0, ran.stderr);
    const body = JSON.parse(ran.stdout) as { reports: { metrics: Sample[] }[] };
    const disks = disksOf(body.reports[0]?.metrics ?? []);
    for (const file of BIND_MOUNTED_FILES) assert.ok(!disks.includes(file), `${file} is no disk: ${disks.join(' ')}`);
    for (const disk of ['/', '/srv/data', REPO_ROOT])
      assert.ok(disks.includes(disk), `${disk} is a disk: ${disks.join(' ')}`);
  });
});
