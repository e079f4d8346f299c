/**
 * Host tools started by a small shell kept running, not by the agent itself. Node starts a child by
 * fork(2): the agent's whole memory is marked copy-on-write for the moment between fork and exec, so
 * each start costs it its page tables copied and then a page fault for every page it writes again —
 * measured at several milliseconds of the agent's CPU with 50 containers' files and figures in its
 * heap, more than the tool itself. A shell of about a megabyte forks for next to nothing.
 *
 * A launcher is `/bin/sh` running LAUNCHER_LOOP: a request is the argument count on a line, then one
 * argument a line (no shell ever parses them: they become "$@" as they are); the answer is
 * `<exit code> <bytes>\n<output>`. One request at a time per launcher, so a tool is reaped before the
 * next starts (no zombie left over) and answers never interleave; up to MAX_LAUNCHERS run side by side,
 * so an hourly package manager's simulation does not hold the collection's systemctl back. A tool
 * that outlasts its time is killed with its launcher's whole process group, and the next request
 * starts a new launcher. Where no shell can be started, each tool is started the plain way.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface ToolAnswer {
  code: number;
  stdout: string;
}

export const MAX_OUTPUT_BYTES = 1 << 20;
const MAX_LAUNCHERS = 3;
const SHELL = '/bin/sh';

/**
 * The launcher's loop. `echo .` after the tool keeps its trailing newlines through the command
 * substitution; LC_ALL=C (the launcher's environment) makes `${#out}` count bytes.
 */
const LAUNCHER_LOOP = [
  'while IFS= read -r n; do',
  '  set --',
  '  while [ "$n" -gt 0 ]; do IFS= read -r a || exit 0; set -- "$@" "$a"; n=$((n - 1)); done',
  '  out=$("$@" 2>/dev/null </dev/null; c=$?; echo .; exit $c); c=$?',
  '  out=${out%.}',
  `  printf '%s %s\\n%s' "$c" "\${#out}" "$out"`,
  'done',
].join('\n');

/**
 * The shell's status for a tool that could not be run (126 not executable, 127 not found) or was
 * ended by a signal (128 + its number): no answer, as for a tool that execFile could not run.
 */
const unanswered = (code: number) => code === 126 || code === 127 || code >= 128;

interface Job {
  args: string[];
  timeoutMs: number;
  resolve: (answer: ToolAnswer | null) => void;
}

type Shell = ChildProcessByStdio<Writable, Readable, null>;

interface Launcher {
  shell: Shell;
  job: Job | null;
  timer: NodeJS.Timeout | undefined;
  received: Buffer[];
}

/** The answer at the head of `bytes`, once whole: its code, output and the bytes it took. */
function parseAnswer(bytes: Buffer): { code: number; stdout: string | null; used: number } | null {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return null;
  const [code, length] = bytes.toString('latin1', 0, newline).split(' ').map(Number) as [number, number];
  const used = newline + 1 + length;
  if (bytes.length < used) return null;
  const stdout = length > MAX_OUTPUT_BYTES ? null : bytes.toString('utf8', newline + 1, used);
  return { code, stdout, used };
}

/** Starts each tool the plain way: a fork of the agent per start. */
function forkEach({ args, timeoutMs, resolve }: Job): void {
  const [file, ...rest] = args as [string, ...string[]];
  execFile(
    file,
    rest,
    { timeout: timeoutMs, maxBuffer: MAX_OUTPUT_BYTES, env: { ...process.env, LC_ALL: 'C' } },
    (error, stdout) => {
      const code = (error as { code?: unknown } | null)?.code;
      // ENOENT, a timeout, too much output: no answer
      resolve(error && typeof code !== 'number' ? null : { code: typeof code === 'number' ? code : 0, stdout });
    },
  );
}

export interface ToolLauncher {
  /** Runs `file` with `args` (a path: no lookup); its exit code and output, or null when it did not run or end. */
  run(file: string, args: string[], timeoutMs: number): Promise<ToolAnswer | null>;
  /** The launchers' process ids (tests). */
  pids(): number[];
}

export function toolLauncher(): ToolLauncher {
  const launchers: Launcher[] = [];
  const waiting: Job[] = [];
  let shellMissing = false;

  function finish(launcher: Launcher, answer: ToolAnswer | null): void {
    const job = launcher.job;
    clearTimeout(launcher.timer);
    launcher.job = null;
    job?.resolve(answer);
    const next = waiting.shift();
    if (next) dispatch(next);
  }

  function retire(launcher: Launcher): void {
    const at = launchers.indexOf(launcher);
    if (at >= 0) launchers.splice(at, 1);
    // the launcher and what it runs: its own process group (started detached)
    try {
      process.kill(-(launcher.shell.pid as number), 'SIGKILL');
    } catch {
      // gone already
    }
  }

  function onData(launcher: Launcher, chunk: Buffer): void {
    launcher.received.push(chunk);
    const bytes = launcher.received.length === 1 ? chunk : Buffer.concat(launcher.received);
    const answer = parseAnswer(bytes);
    if (!answer) {
      launcher.received = [bytes];
      return;
    }
    launcher.received = answer.used < bytes.length ? [bytes.subarray(answer.used)] : [];
    finish(
      launcher,
      answer.stdout === null || unanswered(answer.code) ? null : { code: answer.code, stdout: answer.stdout },
    );
  }

  function start(): Launcher | null {
    let shell: Shell;
    try {
      shell = spawn(SHELL, ['-c', LAUNCHER_LOOP], {
        stdio: ['pipe', 'pipe', 'ignore'],
        detached: true,
        env: { ...process.env, LC_ALL: 'C' },
      });
    } catch {
      return null;
    }
    const launcher: Launcher = { shell, job: null, timer: undefined, received: [] };
    shell.stdout.on('data', (chunk: Buffer) => onData(launcher, chunk));
    shell.stdin.on('error', () => undefined); // a launcher gone: its exit below answers the job
    shell.on('error', () => {
      shellMissing = true; // no shell to start: the plain way from now on
      retire(launcher);
      const job = launcher.job;
      clearTimeout(launcher.timer); // its job goes the plain way, with a time limit of its own
      launcher.job = null;
      if (job) forkEach(job);
    });
    shell.on('exit', () => {
      retire(launcher);
      if (launcher.job) finish(launcher, null);
    });
    // a launcher waiting for work keeps no agent alive: a job's timer does while it runs
    shell.unref();
    (shell.stdin as unknown as { unref?: () => void }).unref?.();
    (shell.stdout as unknown as { unref?: () => void }).unref?.();
    launchers.push(launcher);
    return launcher;
  }

  function dispatch(job: Job): void {
    if (shellMissing || job.args.some((arg) => arg.includes('\n') || arg.includes('\0'))) return forkEach(job);
    const launcher = launchers.find((one) => one.job === null) ?? (launchers.length < MAX_LAUNCHERS ? start() : null);
    if (launcher === null) {
      if (launchers.length === 0) return forkEach(job);
      waiting.push(job);
      return;
    }
    launcher.job = job;
    launcher.timer = setTimeout(() => {
      retire(launcher);
      finish(launcher, null);
    }, job.timeoutMs);
    launcher.shell.stdin.write(`${job.args.length}\n${job.args.map((arg) => `${arg}\n`).join('')}`);
  }

  return {
    run: (file, args, timeoutMs) => new Promise((resolve) => dispatch({ args: [file, ...args], timeoutMs, resolve })),
    pids: () => launchers.map((launcher) => launcher.shell.pid as number),
  };
}
