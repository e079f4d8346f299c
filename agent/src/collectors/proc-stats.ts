/**
 * Every process's /proc/<pid>/stat, read once per collection and shared: the zombie count (kernel.ts)
 * and the process lists (processes.ts) both need all of them, and on a host with a thousand
 * processes the reads are most of what either costs.
 */
import type { Host } from '../host.js';

export interface ProcStat {
  pid: string;
  /** The whole line: pid (comm) state … */
  text: string;
}

export type ProcStats = () => Promise<ProcStat[]>;

/** The stat line of every process there now (one that ended between list and read is left out). */
export async function readProcStats(host: Host): Promise<ProcStat[]> {
  const stats: ProcStat[] = [];
  for (const pid of await host.list('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    // the real host: one pread(2) of a file kept open (kept-files.ts), no promise a file
    const text = host.procStats.read(`/proc/${pid}/stat`);
    if (text) stats.push({ pid, text });
  }
  host.procStats.sweep(); // the processes that ended since
  return stats;
}

/** The state letter: the field after the parenthesised command (which may hold spaces and parentheses). */
export function stateOf(text: string): string {
  const close = text.lastIndexOf(')');
  return text.slice(close + 2, close + 3);
}

/**
 * The reads of one collection, shared by the collectors that take `stats`; `next()` starts the next
 * collection (the following call reads afresh).
 */
export function sharedProcStats(host: Host): { stats: ProcStats; next: () => void } {
  let current: Promise<ProcStat[]> | null = null;
  return {
    stats: () => (current ??= readProcStats(host)),
    next: () => {
      current = null;
    },
  };
}
