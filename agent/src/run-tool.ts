/** The host's own tools (systemctl, smartctl, chronyc, apt-get, journalctl…), run with a time limit. */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { toolLauncher, type ToolLauncher } from './tool-launcher.js';

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
 * that is not installed (chronyc on a host whose time timesyncd keeps was started every minute for
 * nothing); the tools found are started by a launcher kept running (tool-launcher.ts), not by a
 * fork of the agent each.
 */
export function toolRunner(now: () => number = Date.now, launcher: ToolLauncher = toolLauncher()): RunTool {
  const found = new Map<string, { path: string | null; at: number }>();
  const lookup = (file: string): string | null => {
    const known = found.get(file);
    if (known && now() - known.at < TOOL_LOOKUP_MS) return known.path;
    const path = file.includes('/') ? file : onPath(file);
    found.set(file, { path, at: now() });
    return path;
  };
  return async (file, args, options = {}) => {
    const path = lookup(file);
    if (path === null) return null;
    const answer = await launcher.run(path, args, options.timeoutMs ?? TOOL_TIMEOUT_MS);
    // gone since the lookup (or not runnable): look again next time
    if (answer === null && !existsSync(path)) found.delete(file);
    return answer;
  };
}

/** 10 s at most unless told, 1 MiB of output at most; LC_ALL=C so the text parsed is the same on every host. */
export const runTool: RunTool = toolRunner();
