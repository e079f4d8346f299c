/** The host's own tools (systemctl, smartctl, chronyc, apt-get, journalctl…), run with a time limit. */
import { accessSync, constants } from 'node:fs';
import { execFile } from 'node:child_process';
import { delimiter, join } from 'node:path';

/** Runs a host tool: its exit code and output, or null when it is not installed (or hangs). */
export type RunTool = (
  file: string,
  args: string[],
  options?: { timeoutMs?: number },
) => Promise<{ code: number; stdout: string } | null>;

export const TOOL_TIMEOUT_MS = 10_000;
/** Where a tool was found (or that it was not) is looked up again after this long: one installed later is used. */
export const TOOL_LOOKUP_MS = 10 * 60_000;

/** The first executable `file` on PATH, as execvp would run it; null when there is none. */
function onPath(file: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, file);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * A tool runner that looks a tool up on PATH once every TOOL_LOOKUP_MS and does not start a tool
 * that is not installed. Node starts a child by fork(2): for the agent that is ~2 ms of its own CPU
 * each (its page tables copied), and a tool missing on PATH was forked for each call all the same
 * (chronyc where timesyncd keeps the time, every minute).
 */
export function toolRunner(now: () => number = Date.now): RunTool {
  const found = new Map<string, { path: string | null; at: number }>();
  const lookup = (file: string): string | null => {
    const known = found.get(file);
    if (known && now() - known.at < TOOL_LOOKUP_MS) return known.path;
    const path = file.includes('/') ? file : onPath(file);
    found.set(file, { path, at: now() });
    return path;
  };
  return (file, args, options = {}) => {
    const path = lookup(file);
    if (path === null) return Promise.resolve(null);
    return new Promise((resolve) => {
      execFile(
        path,
        args,
        {
          timeout: options.timeoutMs ?? TOOL_TIMEOUT_MS,
          maxBuffer: 1 << 20,
          env: { ...process.env, LC_ALL: 'C' },
        },
        (error, stdout) => {
          const code = (error as { code?: unknown } | null)?.code;
          if (code === 'ENOENT') found.delete(file); // gone since the lookup: look again next time
          if (error && typeof code !== 'number')
            resolve(null); // ENOENT, a timeout, too much output: no answer
          else resolve({ code: typeof code === 'number' ? code : 0, stdout });
        },
      );
    });
  };
}

/** 10 s at most unless told, 1 MiB of output at most; LC_ALL=C so the text parsed is the same on every host. */
export const runTool: RunTool = toolRunner();
