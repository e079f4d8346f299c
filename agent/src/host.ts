/**
 * Everything the collectors read from the host, behind one small interface: the real files under
 * `/` in production, a recorded tree of /proc and /sys in the tests (fixtures of an x86_64 host, an
 * arm64 host and a container). Unreadable means absent: a collector then leaves its metric out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { keptFiles, type KeptFiles } from './kept-files.js';

export interface FsStats {
  /** Fragment size in bytes, and counts of blocks: all, free, free for unprivileged users. */
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}

export interface Host {
  /** A file's text, or null when it is not there or not readable. */
  read(path: string): Promise<string | null>;
  /** A directory's entries, or [] when it is not there. */
  list(path: string): Promise<string[]>;
  /** statfs(2) of a mount point, or null. */
  statfs(path: string): Promise<FsStats | null>;
  /** Whether the path is a directory (false when it is a file or not there). */
  isDirectory(path: string): Promise<boolean>;
  /**
   * The reader of every process's /proc/<pid>/stat, swept after each collection (proc-stats.ts): on a
   * real host the files are kept open between collections (kept-files.ts).
   */
  procStats: StatFiles;
}

/** What proc-stats.ts asks of `Host.procStats`: a file's text or null, and `sweep()` after each pass. */
export type StatFiles = Pick<KeptFiles, 'read' | 'sweep'>;

/** /proc/<pid>/stat files kept open at most: on a host with more processes the rest are read the plain way. */
const KEPT_STATS = 1024;

/** The host under `root` (`/` in production). */
export function localHost(root = '/'): Host {
  // the path as it is under `/`: path.join's normalising is a measurable share of a few hundred reads a collection
  const at = root === '/' ? (path: string) => path : (path: string) => join(root, path);
  const stats = keptFiles(KEPT_STATS);
  return {
    procStats: { read: (path) => stats.read(at(path)), sweep: stats.sweep },
    // synchronous on purpose: /proc and /sys files are generated in memory, and a promise and a
    // thread-pool hop per file cost more CPU than the read itself (hundreds of /proc/<pid>/stat)
    read: async (path) => {
      try {
        return readFileSync(at(path), 'utf8');
      } catch {
        return null;
      }
    },
    list: async (path) => {
      try {
        return readdirSync(at(path));
      } catch {
        return [];
      }
    },
    statfs: (path) =>
      statfs(at(path)).then(
        (s) => ({ bsize: s.bsize, blocks: s.blocks, bfree: s.bfree, bavail: s.bavail, files: s.files, ffree: s.ffree }),
        () => null,
      ),
    isDirectory: (path) =>
      stat(at(path)).then(
        (s) => s.isDirectory(),
        () => false,
      ),
  };
}

/** The whitespace-separated fields of each non-empty line. */
export function fieldsOf(text: string): string[][] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split(/\s+/));
}

/** A finite number, or null. */
export function numberOf(text: string | undefined | null): number | null {
  if (text === undefined || text === null || text.trim() === '') return null;
  const value = Number(text.trim());
  return Number.isFinite(value) ? value : null;
}
