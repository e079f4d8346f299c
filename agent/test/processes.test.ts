/**
 * The processes collector on this machine's real /proc: a busy loop started by the test shows at
 * the top by CPU, named by its process name and user and never by its arguments; watched patterns
 * count their processes, and one that matches nothing reports 0 (what "not running" alerts on).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localHost } from '../src/host.js';
import { createCollector } from '../src/collect.js';
import { globMatcher, processesCollector } from '../src/collectors/processes.js';
import type { Sample } from '../src/sample.js';

const until = async (check: () => Promise<boolean>, what: () => string = () => 'the condition') => {
  for (let tries = 0; tries < 50 && !(await check()); tries += 1) await new Promise((r) => setTimeout(r, 100));
  assert.ok(await check(), what());
};

/** A /proc file's text for a failure's message (why a process was not counted). */
const procText = (path: string) => {
  try {
    return JSON.stringify(readFileSync(path, 'utf8'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
};

describe('processes from /proc', () => {
  const busyName = `argus-busy-${randomBytes(2).toString('hex')}`;
  let dir: string;
  let busy: ChildProcess;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-processes-'));
    // the process name is the name it was started by: a link to the shell, named for this test
    await symlink('/bin/sh', join(dir, busyName));
    busy = spawn(join(dir, busyName), ['-c', 'while :; do :; done', 'SECRET-ARGUMENT'], { stdio: 'ignore' });
  });
  after(async () => {
    busy.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('puts a busy loop at the top by CPU, counts watched patterns and sends no argument', async () => {
    const collect = processesCollector(
      localHost(),
      () => ({ processes: `argus-busy-*, argus-no-such-process, ${dir}/* -c *`, 'processes.top': '5' }),
      () => performance.now(),
    );
    const first = await collect();
    assert.equal(first.filter((s) => s.name === 'process.cpu_pct').length, 0, 'CPU needs two looks');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const samples = await collect();
    const of = (metric: string, instance: string) =>
      samples.find((s: Sample) => s.name === metric && s.instance === instance)?.value;

    const topCpu = samples.filter((s) => s.name === 'process.cpu_pct').sort((a, b) => b.value - a.value);
    assert.ok(topCpu.length <= 5 + 5, 'at most N by CPU and N by memory');
    const mine = `${busyName} (${userInfo().username})`;
    assert.ok(
      topCpu.slice(0, 5).some((s) => s.instance === mine),
      `the busy loop is in the top 5: ${topCpu.map((s) => `${s.instance} ${s.value}`).join(', ')}`,
    );
    // a share of one CPU, as top shows it (the machine is shared: a loop may get a small share of a core)
    assert.ok((of('process.cpu_pct', mine) ?? 0) > 3);
    assert.equal(of('processes.count', 'argus-busy-*'), 1);
    assert.equal(of('processes.count', `${dir}/* -c *`), 1, 'a pattern with a path matches the command line');
    assert.ok((of('processes.cpu_pct', 'argus-busy-*') ?? 0) > 3);
    assert.ok((of('processes.rss_bytes', 'argus-busy-*') ?? 0) > 100_000);
    assert.equal(of('processes.count', 'argus-no-such-process'), 0, 'a watched pattern at 0 is sent as 0');
    assert.equal(of('processes.rss_bytes', 'argus-no-such-process'), 0);
    assert.ok(!samples.some((s) => s.instance?.includes('SECRET')), 'no argument leaves the host');
  });

  it('matches a name longer than the 15 characters the kernel keeps by its program', async () => {
    const long = `argus-long-name-${randomBytes(3).toString('hex')}`;
    await symlink('/bin/sh', join(dir, long));
    const child = spawn(join(dir, long), ['-c', 'sleep 30'], { stdio: 'ignore' });
    try {
      const collect = processesCollector(
        localHost(),
        () => ({ processes: long, 'processes.top': '0' }),
        () => 0,
      );
      let seen: Sample[] = [];
      const counted = async () => (seen = await collect()).find((s) => s.name === 'processes.count')?.value === 1;
      await until(
        counted,
        () =>
          `${long} (pid ${child.pid}: ${procText(`/proc/${child.pid}/stat`)} / ${procText(`/proc/${child.pid}/cmdline`)}) counted as ${JSON.stringify(seen)}`,
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('names the top lines by their command line only when processes.args is on', async () => {
    const collect = processesCollector(
      localHost(),
      () => ({ 'processes.top': '20', 'processes.args': 'on' }),
      () => performance.now(),
    );
    await collect();
    // on a loaded machine the loop may miss the top 20 of one short look: a few looks of a second each
    let instances: string[] = [];
    for (let look = 0; look < 5 && !instances.some((i) => i.includes('SECRET-ARGUMENT')); look += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      instances = (await collect()).map((s) => s.instance ?? '');
    }
    assert.ok(
      instances.some((i) => i.includes('SECRET-ARGUMENT')),
      instances.join('\n'),
    );
  });

  it('matches globs whole', () => {
    assert.ok(globMatcher('nginx*').test('nginx: worker'));
    assert.ok(!globMatcher('nginx').test('nginx-exporter'));
    assert.ok(globMatcher('post?res').test('postgres'));
    assert.ok(!globMatcher('a.c').test('abc'), 'a dot is a dot');
  });
});

describe('one read of each process a collection', () => {
  it('reads every /proc/<pid>/stat once a look, shared by the zombie count and the process lists', async () => {
    const real = localHost();
    const statReads = new Map<string, number>();
    const count = (path: string) => {
      if (/^\/proc\/\d+\/stat$/.test(path)) statReads.set(path, (statReads.get(path) ?? 0) + 1);
    };
    const kept = real.procStats;
    const counting = {
      ...real,
      read: (path: string) => {
        count(path);
        return real.read(path);
      },
      procStats: {
        read: (path: string) => {
          count(path);
          return kept.read(path);
        },
        sweep: kept.sweep,
      },
    };
    const collector = createCollector(counting, {
      primeMs: 10,
      settings: () => ({ processes: 'argus-no-such-process', 'processes.top': '5' }),
    });
    const report = await collector.report();
    assert.ok(report.metrics.some((s) => s.name === 'proc.zombies'));
    assert.ok(report.metrics.some((s) => s.name === 'processes.count'));
    assert.ok(statReads.size > 3, `${statReads.size} processes`);
    // the first report takes two looks (rates need two); a process that started between them once
    const most = Math.max(...statReads.values());
    assert.equal(most, 2, `at most once a look, not once for each collector: ${most}`);
  });
});
