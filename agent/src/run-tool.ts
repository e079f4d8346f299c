/** The host's own tools (systemctl, smartctl, chronyc, apt-get, journalctl…), run with a time limit. */
import { execFile } from 'node:child_process';

/** Runs a host tool: its exit code and output, or null when it is not installed (or hangs). */
export type RunTool = (
  file: string,
  args: string[],
  options?: { timeoutMs?: number },
) => Promise<{ code: number; stdout: string } | null>;

export const TOOL_TIMEOUT_MS = 10_000;

/** 10 s at most unless told, 1 MiB of output at most; LC_ALL=C so the text parsed is the same on every host. */
export const runTool: RunTool = (file, args, options = {}) =>
  new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: options.timeoutMs ?? TOOL_TIMEOUT_MS, maxBuffer: 1 << 20, env: { ...process.env, LC_ALL: 'C' } },
      (error, stdout) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (error && typeof code !== 'number')
          resolve(null); // ENOENT, a timeout, too much output: no answer
        else resolve({ code: typeof code === 'number' ? code : 0, stdout });
      },
    );
  });
