/**
 * Host tools are started by a shell kept running, not by a fork of the agent each: the answers are
 * the tool's own (exit code, output to the byte), arguments reach the tool as they are (no shell
 * parses them), a tool past its time is killed with what it started, a slow tool does not hold a
 * quick one back, and no zombie is left behind.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_OUTPUT_BYTES, toolLauncher } from '../src/tool-launcher.js';

const SH = '/bin/sh';

/** The parent pid and state letter of a process, from /proc (null when it is gone). */
async function procOf(pid: number): Promise<{ ppid: number; state: string } | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (text === null) return null;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] as string, ppid: Number(fields[1]) };
}

async function childrenOf(pid: number): Promise<{ pid: number; state: string }[]> {
  const children = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const proc = await procOf(Number(name));
    if (proc?.ppid === pid) children.push({ pid: Number(name), state: proc.state });
  }
  return children;
}

const gone = async (pid: number) => {
  for (let i = 0; i < 50; i++) {
    const proc = await procOf(pid);
    if (proc === null || proc.state === 'Z') return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
};

describe('the host tools launcher', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-launcher-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('starts the tools from one launcher kept running, not from the agent', async () => {
    const launcher = toolLauncher();
    const chains: { parent: number; grandparent: number }[] = [];
    for (let i = 0; i < 10; i++) {
      // the tool's parent's own stat line: its pid and its parent's, while both are still there
      const answer = await launcher.run(SH, ['-c', 'cat /proc/$PPID/stat'], 5000);
      assert.equal(answer?.code, 0);
      const text = answer?.stdout ?? '';
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      chains.push({ parent: Number.parseInt(text, 10), grandparent: Number(fields[1]) });
    }
    assert.equal(launcher.pids().length, 1, 'one launcher for ten tools run one after another');
    const [shell] = launcher.pids() as [number];
    for (const { parent, grandparent } of chains) {
      assert.notEqual(parent, process.pid, 'the agent did not start the tool itself');
      assert.ok(parent === shell || grandparent === shell, `tool's parent ${parent} is the launcher ${shell}'s`);
    }
  });

  it('gives the exit code and the output to the byte, trailing newlines and UTF-8 included', async () => {
    const launcher = toolLauncher();
    assert.deepEqual(await launcher.run(SH, ['-c', 'printf "a\\n\\n"; exit 3'], 5000), { code: 3, stdout: 'a\n\n' });
    assert.deepEqual(await launcher.run(SH, ['-c', 'true'], 5000), { code: 0, stdout: '' });
    assert.deepEqual(await launcher.run(SH, ['-c', 'printf "d\\303\\251j\\303\\240"'], 5000), {
      code: 0,
      stdout: 'déjà',
    });
    assert.deepEqual(await launcher.run(SH, ['-c', 'echo $LC_ALL'], 5000), { code: 0, stdout: 'C\n' });
    const big = await launcher.run(SH, ['-c', `head -c ${MAX_OUTPUT_BYTES + 1} /dev/zero | tr '\\0' x`], 5000);
    assert.equal(big, null, 'more output than a tool may give: no answer');
    const fits = await launcher.run(SH, ['-c', `head -c ${MAX_OUTPUT_BYTES} /dev/zero | tr '\\0' y`], 5000);
    assert.equal(fits?.stdout.length, MAX_OUTPUT_BYTES, 'a whole mebibyte still comes through');
    assert.deepEqual(await launcher.run(SH, ['-c', 'echo after'], 5000), { code: 0, stdout: 'after\n' });
  });

  it('passes arguments to the tool as they are: no shell parses them', async () => {
    const launcher = toolLauncher();
    const marker = join(dir, 'planted');
    const args = [`$(touch ${marker})`, `; touch ${marker}`, "it's", ' spaced ', 'back\\slash', '*', '`id`', ''];
    const answer = await launcher.run(SH, ['-c', 'printf "%s|" "$@"', 'tool', ...args], 5000);
    assert.deepEqual(answer, { code: 0, stdout: `${args.join('|')}|` });
    await assert.rejects(stat(marker), 'nothing planted in an argument ran');
    // a newline cannot cross the launcher's one-argument-a-line requests: such a tool is started the plain way
    assert.deepEqual(await launcher.run(SH, ['-c', 'printf "%s" "$1"', 'tool', 'two\nlines'], 5000), {
      code: 0,
      stdout: 'two\nlines',
    });
  });

  it('kills a tool past its time with what it started, and answers the next one', async () => {
    const launcher = toolLauncher();
    const pidFile = join(dir, 'slow.pid');
    const started = Date.now();
    const answer = await launcher.run(SH, ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], 500);
    assert.equal(answer, null, 'no answer past its time');
    assert.ok(Date.now() - started < 3000, 'given up at its time');
    const sleeper = Number(await readFile(pidFile, 'utf8'));
    assert.ok(await gone(sleeper), 'what the tool started was killed with it');
    assert.deepEqual(await launcher.run(SH, ['-c', 'echo next'], 5000), { code: 0, stdout: 'next\n' });
  });

  it('does not hold a quick tool back behind a slow one', async () => {
    const launcher = toolLauncher();
    const slow = launcher.run(SH, ['-c', 'sleep 2; echo slow'], 5000);
    const started = Date.now();
    assert.deepEqual(await launcher.run(SH, ['-c', 'echo quick'], 5000), { code: 0, stdout: 'quick\n' });
    assert.ok(Date.now() - started < 1500, `the quick one answered in ${Date.now() - started} ms`);
    assert.deepEqual(await slow, { code: 0, stdout: 'slow\n' });
    assert.equal(launcher.pids().length, 2);
  });

  it('answers null for a tool that cannot run, and leaves no zombie', async () => {
    const launcher = toolLauncher();
    const notExecutable = join(dir, 'not-executable');
    await writeFile(notExecutable, '#!/bin/sh\necho no\n');
    await chmod(notExecutable, 0o644);
    assert.equal(await launcher.run(notExecutable, [], 5000), null);
    assert.equal(await launcher.run(join(dir, 'missing'), [], 5000), null);
    assert.equal(await launcher.run(SH, ['-c', 'kill -9 $$'], 5000), null, 'killed by a signal: no answer');
    for (const shell of launcher.pids())
      assert.deepEqual(await childrenOf(shell), [], `launcher ${shell} has no child left, zombie or not`);
  });
});
