/**
 * Script checks (docs/protocol.md "Script checks and drop-in metrics"): the executables in the
 * checks directory (`checks_dir` in config.yaml, `/etc/argus-agent/checks.d` by default), each run
 * on its own interval with a timeout, as the agent's own user, without a shell and without
 * arguments. Only a regular file owned by root and not writable by its group or others runs (the
 * agent's account may be compromised: it must not be able to plant what runs); so must the
 * directory be. Anything else is refused, said once in the log with the reason.
 *
 * Each check yields its state (`script.state{check}`: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), its
 * performance data (`script.perf{check:label}`) and a `scripts` entry of the report (state, message,
 * when it ran). Every report carries each check's last result, so rules see it as fresh between runs.
 */
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckResult } from '../../../contracts/agent-report.js';
import { MAX_CHECKS_PER_REPORT, MAX_INSTANCE_LENGTH } from '../../../contracts/agent-report-limits.js';
import { sample, type Sample } from '../sample.js';
import { messageOf, perfValuesOf, printable, STATE_BY_EXIT } from './nagios-output.js';

export const DEFAULT_CHECKS_DIR = '/etc/argus-agent/checks.d';
export const DEFAULT_INTERVAL_S = 60;
export const DEFAULT_TIMEOUT_S = 10;
/** Output kept per run; the rest is read and dropped, so a chatty plugin never blocks on its pipe. */
export const MAX_OUTPUT_BYTES = 16 * 1024;
/** Checks run at the same time at most: a directory of fifty plugins must not fork fifty at once. */
const CONCURRENCY = 4;
const EXIT_GRACE_MS = 1000;
const STATE_VALUE = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 } as const;

export interface ScriptChecksOptions {
  dir: string;
  settings: () => Record<string, unknown>;
  log: (line: string) => void;
  now?: () => number;
  /** How long the first report waits for the first runs (`collect`, `once`: all of them). */
  firstWaitMs?: number;
}

interface Outcome {
  result: CheckResult;
  samples: Sample[];
}

/** Seconds from a setting, whole, within bounds; the default otherwise. */
function seconds(value: unknown, fallback: number, min: number, max: number): number {
  const number = Number(value);
  return Number.isInteger(number) && number >= min && number <= max ? number : fallback;
}

/** Agent settings `scripts.interval` / `scripts.timeout`, and per check `scripts.<name>.interval` / `.timeout`. */
export function scheduleOf(settings: Record<string, unknown>, name: string): { intervalMs: number; timeoutMs: number } {
  const interval = seconds(settings['scripts.interval'], DEFAULT_INTERVAL_S, 5, 86_400);
  const timeout = seconds(settings['scripts.timeout'], DEFAULT_TIMEOUT_S, 1, 600);
  return {
    intervalMs: seconds(settings[`scripts.${name}.interval`], interval, 5, 86_400) * 1000,
    timeoutMs: seconds(settings[`scripts.${name}.timeout`], timeout, 1, 600) * 1000,
  };
}

/** Why a file must not run, or null when it may: owned by root, not writable by group or others. */
export function refusalOf(info: { uid: number; mode: number; isFile(): boolean }): string | null {
  if (!info.isFile()) return 'not a regular file';
  if (info.uid !== 0) return `owned by uid ${info.uid}, not root`;
  if (info.mode & 0o022) return 'writable by its group or others';
  if (!(info.mode & 0o100)) return 'not executable';
  return null;
}

/** Hidden files and editors' or package managers' leftovers are no checks. */
const ignored = (name: string) => name.startsWith('.') || /~$|\.(dpkg-[a-z]+|rpm(new|save|orig)|swp|bak)$/.test(name);

/** Runs one check: its state, message and figures; never throws. */
export function runCheck(path: string, name: string, timeoutMs: number, now: () => number): Promise<Outcome> {
  return new Promise((resolve) => {
    const ran = new Date(now()).toISOString();
    const done = (state: CheckResult['state'], message: string, output = '') => {
      const perf = state === 'UNKNOWN' && !output ? [] : perfValuesOf(output);
      const samples = [sample('script.state', STATE_VALUE[state], name)];
      for (const { label, value } of perf) {
        const instance = `${name}:${label}`;
        if (instance.length <= MAX_INSTANCE_LENGTH) samples.push({ name: 'script.perf', instance, value });
      }
      resolve({ result: { name, state, message: printable(message), ran }, samples });
    };
    // its own process group, so a timeout also ends what a shell script started
    const child = spawn(path, [], { cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let size = 0;
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (size < MAX_OUTPUT_BYTES) output += chunk.subarray(0, MAX_OUTPUT_BYTES - size).toString();
      size += chunk.length;
    });
    child.stderr.resume();
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done('UNKNOWN', `could not run: ${error.code ?? error.message}`);
    });
    // the output is read until the pipe closes, or a second after the exit at most: a grandchild
    // left holding the pipe must not hold the result back
    child.once('exit', async (code, signal) => {
      clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise((closed) => child.once('close', closed)),
        new Promise((late) => (grace = setTimeout(late, EXIT_GRACE_MS))),
      ]);
      clearTimeout(grace);
      killGroup(child.pid);
      if (timedOut) return done('UNKNOWN', `timed out after ${timeoutMs / 1000} s`);
      if (signal) return done('UNKNOWN', `killed by ${signal}${output ? `: ${messageOf(output)}` : ''}`);
      const state = STATE_BY_EXIT[code ?? 3];
      if (!state) return done('UNKNOWN', `exit code ${code}${output ? `: ${messageOf(output)}` : ''}`, output);
      done(state, messageOf(output) || `exit code ${code}, no output`, output);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

export function scriptChecks(options: ScriptChecksOptions) {
  const now = options.now ?? Date.now;
  const last = new Map<string, Outcome>();
  /** When each check last started. */
  const started = new Map<string, number>();
  const running = new Set<string>();
  /** Refusals said once each, until the file changes its verdict. */
  const said = new Map<string, string>();
  let queue: Promise<void> = Promise.resolve();
  let first = true;

  const sayOnce = (key: string, line: string) => {
    if (said.get(key) === line) return;
    said.set(key, line);
    options.log(line);
  };

  /** The checks that may run now, by name; refused ones said once. */
  async function runnable(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const dir = await stat(options.dir).catch(() => null);
    if (!dir) return found; // no directory: no script checks, nothing to say
    const dirRefusal = dir.isDirectory()
      ? refusalOf({ uid: dir.uid, mode: dir.mode | 0o100, isFile: () => true })
      : 'not a directory';
    if (dirRefusal) {
      sayOnce(options.dir, `script checks: ${options.dir} is ${dirRefusal}: none of its files run`);
      return found;
    }
    for (const name of (await readdir(options.dir).catch(() => [])).sort()) {
      if (ignored(name)) continue;
      const path = join(options.dir, name);
      const info = await stat(path).catch(() => null);
      if (!info || info.isDirectory()) continue;
      const refusal =
        printable(name, MAX_INSTANCE_LENGTH) !== name ? 'a name of control characters or too long' : refusalOf(info);
      if (refusal) {
        sayOnce(path, `script check ${path} refused: ${refusal}`);
        continue;
      }
      said.delete(path);
      if (found.size >= MAX_CHECKS_PER_REPORT) {
        sayOnce('too many', `script checks: more than ${MAX_CHECKS_PER_REPORT} in ${options.dir}; the rest do not run`);
        break;
      }
      found.set(name, path);
    }
    return found;
  }

  /** Runs the due checks, CONCURRENCY at a time. */
  async function runDue(checks: Map<string, string>): Promise<void> {
    const settings = options.settings();
    // due by the interval in effect now: a shorter interval set meanwhile applies at once
    const isDue = (name: string) => now() - (started.get(name) ?? -Infinity) >= scheduleOf(settings, name).intervalMs;
    const todo = [...checks].filter(([name]) => !running.has(name) && isDue(name));
    for (const [name] of todo) running.add(name);
    const worker = async () => {
      for (let next = todo.shift(); next; next = todo.shift()) {
        const [name, path] = next;
        started.set(name, now());
        last.set(name, await runCheck(path, name, scheduleOf(settings, name).timeoutMs, now));
        running.delete(name);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }

  return {
    /** The last result of every check in the directory; due runs start in the background. */
    async collect(): Promise<{ samples: Sample[]; checks: CheckResult[] }> {
      const checks = await runnable();
      for (const name of last.keys()) if (!checks.has(name)) last.delete(name); // removed from the directory
      const runs = runDue(checks);
      queue = queue.then(() => runs);
      if (first) {
        first = false;
        const wait = options.firstWaitMs ?? Infinity;
        let timer: NodeJS.Timeout | undefined;
        if (wait === Infinity) await runs;
        else await Promise.race([runs, new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
        clearTimeout(timer);
      }
      const outcomes = [...last.values()];
      return { samples: outcomes.flatMap((o) => o.samples), checks: outcomes.map((o) => o.result) };
    },
    /** Resolves when no run is under way (tests). */
    settled: () => queue,
  };
}

export type ScriptChecks = ReturnType<typeof scriptChecks>;
