/**
 * What the benches read of a process they run from /proc: its stat line's fields and the processes
 * it started.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks a second of /proc/<pid>/stat's times (USER_HZ on Linux). */
export const USER_HZ = 100;

/**
 * The fields of a /proc/<pid>/stat line after "pid (comm) " (a command may hold spaces and
 * parentheses), counted from the state at 0: utime 11, stime 12, cutime 13, cstime 14.
 */
export const statFields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** The processes `pid` started (its main thread's children: a node:cluster primary's workers, an agent's host tools); [] once it is gone. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
