/**
 * Small generated files (/proc, /sys/fs/cgroup) read again and again, kept open between reads.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

export type Read = (path: string) => string | null;

/** A file's text, or null when it is not there or not readable. */
export const readFile: Read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

export interface KeptFiles {
  read: Read;
  /** Closes the files not read since the last sweep. */
  sweep: () => void;
  /** Closes every file (the files' reader is turned off). */
  closeAll: () => void;
}

/** Longer files (a /proc/<pid>/net/dev of many interfaces) are read the plain way. */
const KEPT_BUFFER = 16 * 1024;

/**
 * A reader that keeps each file it reads open and reads it again from offset 0: one pread(2) a look
 * instead of open, fstat, read, read and close, a third of the time for the hundreds of small counter
 * files of a host with containers (the kernel generates them anew on every read from 0). `sweep()`
 * after each pass closes the files not read since the last sweep (a container or a process
 * gone). A file whose cgroup was removed answers an error: it is closed and read the plain way.
 */
export function keptFiles(max: number): KeptFiles {
  const open = new Map<string, { fd: number; used: boolean }>();
  let buffer: Buffer | null = null;
  const drop = (path: string, fd: number) => {
    open.delete(path);
    try {
      closeSync(fd);
    } catch {
      // already gone
    }
  };
  const read: Read = (path) => {
    let kept = open.get(path);
    if (!kept) {
      if (open.size >= max) return readFile(path);
      try {
        kept = { fd: openSync(path, 'r'), used: true };
      } catch (error) {
        // not there; else (no descriptor left) the plain way
        return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : readFile(path);
      }
      open.set(path, kept);
    }
    kept.used = true;
    buffer ??= Buffer.allocUnsafe(KEPT_BUFFER);
    try {
      const length = readSync(kept.fd, buffer, 0, KEPT_BUFFER, 0);
      if (length < KEPT_BUFFER) return buffer.toString('utf8', 0, length);
    } catch {
      // a removed cgroup's file (ENODEV), a process gone: read afresh below
    }
    drop(path, kept.fd); // longer than the buffer, or unreadable now
    return readFile(path);
  };
  const sweep = () => {
    for (const [path, kept] of open) {
      if (kept.used) kept.used = false;
      else drop(path, kept.fd);
    }
  };
  const closeAll = () => {
    for (const [path, kept] of open) drop(path, kept.fd);
  };
  return { read, sweep, closeAll };
}
