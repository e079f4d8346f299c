import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// node with tsx's loader, as `npm start` runs it: the tsx CLI's signal relay would stand between the
// test and the process (and SIGKILLs a child slow to acknowledge a signal)
const NODE_ARGS = ['--import', 'tsx'];

export interface ScriptResult {
  code: number | null;
  output: string;
}

/** Runs a TypeScript entry point of the repo as its own process (as `npm start` would). */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(REPO_ROOT, script), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface StartedScript {
  child: ReturnType<typeof spawn>;
  exited: Promise<number | null>;
  output(): string;
  /** Signals the whole process group (the process and anything it started), like a terminal does. */
  kill(signal: NodeJS.Signals): void;
}

/** Starts a long-running entry point (a server) as its own process. */
export function startScript(script: string, args: string[], env: Record<string, string | undefined>): StartedScript {
  const child = spawn(process.execPath, [...NODE_ARGS, path.join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so a kill reaches the grandchildren too
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const kill = (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return { child, exited, output: () => output, kill };
}
