/**
 * Shared by the deployment tests (ops/deploy/*.test.ts): running real tools (docker-compose, nginx,
 * psql, shellcheck, the reclaim script) as child processes, and the repository's file list.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  cwd?: string;
  /** The whole environment of the child (nothing is inherited unless passed). */
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** Runs a program to its end without a shell; never throws for a non-zero exit. */
export function runTool(command: string, args: string[], options: ToolOptions = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish in time:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined); // a tool that exits without reading its input
      child.stdin.end(options.input);
    }
  });
}

/** Every file of the working tree that git would consider (tracked or new, not ignored). */
export async function repositoryFiles(): Promise<string[]> {
  const listed = await runTool('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return [...new Set(listed.stdout.split('\0').filter(Boolean))].sort();
}

/** The environment a tool gets: PATH and HOME only, plus what the test adds. */
export function toolEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', ...extra };
}
