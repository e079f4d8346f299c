/**
 * time.offset_ms: how far the host's clock is from the time its NTP client follows, in ms, positive
 * when the host is ahead. Asked of the client that runs (both answer without root):
 * - chrony: `chronyc tracking`, "System time : 0.000012345 seconds fast|slow of NTP time";
 * - systemd-timesyncd: `timedatectl timesync-status`, "Offset: -1.234ms" (NTP's offset, the
 *   server's time minus the host's, so its sign is turned round).
 * Not synchronised (no reference, no offset yet) or no client: no sample. The kernel's own estimate
 * (adjtimex) is not readable from /proc, and Node has no adjtimex call.
 */
import type { RunTool } from '../run-tool.js';
import { sample, type Sample } from '../sample.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, min: 60_000 };

/** The offset in `chronyc tracking`, or null while chrony follows no source. */
export function chronyOffsetMs(tracking: string): number | null {
  if (/^Reference ID\s*:\s*0+ \(\)/m.test(tracking) || /^Leap status\s*:\s*Not synchronised/m.test(tracking))
    return null;
  const match = /^System time\s*:\s*([\d.]+) seconds (fast|slow) of NTP time/m.exec(tracking);
  if (!match) return null;
  return Number(match[1]) * 1000 * (match[2] === 'fast' ? 1 : -1);
}

/** The offset in `timedatectl timesync-status` (timesyncd prints it once it has an answer). */
export function timesyncdOffsetMs(status: string): number | null {
  const match = /^\s*Offset:\s*([+-]?[\d.]+)(ns|us|\u00b5s|ms|s|min)\s*$/m.exec(status);
  const unit = match ? UNIT_MS[match[2] as string] : undefined;
  if (!match || unit === undefined) return null;
  const offset = -Number(match[1]) * unit;
  return Number.isFinite(offset) ? offset : null;
}

export function clockCollector(run: RunTool) {
  return async (): Promise<Sample[]> => {
    const chrony = await run('chronyc', ['tracking']);
    const fromChrony = chrony && chrony.code === 0 ? chronyOffsetMs(chrony.stdout) : null;
    if (fromChrony !== null) return [sample('time.offset_ms', fromChrony)];
    const timesyncd = await run('timedatectl', ['timesync-status']);
    const fromTimesyncd = timesyncd && timesyncd.code === 0 ? timesyncdOffsetMs(timesyncd.stdout) : null;
    return fromTimesyncd !== null ? [sample('time.offset_ms', fromTimesyncd)] : [];
  };
}
