/**
 * The on-disk buffer of reports not yet accepted. Every report is appended here
 * before it is sent and taken off only after the server's 200, so nothing is lost while the server
 * is away or across a restart of the agent.
 *
 * Append-only segments (`<seq>.seg`, about 1 MiB each) of lines `<crc32 hex> <json>`; a line torn by
 * a crash (no newline, or a checksum that does not match) is skipped. What was delivered is a
 * position (segment, line) in `position.json`, written by rename; a segment read to its end is
 * deleted. Bounded by age and size: the oldest segments go first, and the reports dropped are
 * counted.
 *
 * The agent is the directory's only writer, so the segments, their sizes and their lines' offsets
 * live in memory after one look at the start: a collection's count, append, peek and
 * acknowledgement cost the new report's write, one read of what is sent and the position's rename,
 * never a directory listing or a rescan. The calls are synchronous, as the agent's /proc reads are:
 * each is a few microseconds against the page cache, where a promise of node:fs/promises costs a
 * hop to the thread pool and back (tens of microseconds of the agent's CPU) per call.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync } from 'node:fs';
import { rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { AgentReport } from '../../contracts/agent-report.js';

export interface BufferLimits {
  maxBytes: number;
  maxAgeMs: number;
  segmentBytes: number;
}

export const DEFAULT_LIMITS: BufferLimits = {
  maxBytes: 50 * 1024 * 1024,
  maxAgeMs: 24 * 3_600_000,
  segmentBytes: 1024 * 1024,
};

interface Position {
  segment: number;
  line: number;
}

/** A segment as the buffer knows it: its bytes on disk, and the intact lines among those scanned. */
interface Segment {
  seq: number;
  size: number;
  /** When it was last written (its mtime at the start), for the age limit. */
  writtenAt: number;
  /** Each intact line's JSON as its start and end offset. */
  lines: number[];
  /** The bytes of whole lines looked at: the next scan starts after them. */
  scanned: number;
}

const segmentName = (seq: number) => `${String(seq).padStart(10, '0')}.seg`;
const checksum = (json: string | Buffer) => crc32(json).toString(16).padStart(8, '0');
const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * The intact lines of `bytes` (whole lines only, each ending in a newline): each one's JSON as its
 * start and end offset, `base` added. A torn or damaged line is skipped. `scanned`: the bytes of the
 * whole lines looked at, so the next look starts after them.
 */
export function intactLines(bytes: Buffer, base = 0): { lines: number[]; scanned: number } {
  const lines: number[] = [];
  let at = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, at)) {
    const json = bytes.subarray(at + 9, end);
    if (end - at > 9 && bytes[at + 8] === SPACE && bytes.toString('latin1', at, at + 8) === checksum(json))
      lines.push(base + at + 9, base + end);
    at = end + 1;
  }
  return { lines, scanned: at };
}

/** `length` bytes of a file from `offset`, through `fd` when given, else opened for the read. */
function readAt(path: string, fd: number | null, offset: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  const handle = fd ?? openSync(path, 'r');
  try {
    let got = 0;
    while (got < length) {
      const n = readSync(handle, bytes, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return bytes.subarray(0, got);
  } finally {
    if (fd === null) closeSync(handle);
  }
}

export async function openBuffer(dir: string, limits: BufferLimits = DEFAULT_LIMITS, now: () => number = Date.now) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let dropped = 0;
  const positionFile = join(dir, 'position.json');
  const pathOf = (seq: number) => join(dir, segmentName(seq));
  let position: Position;
  try {
    position = JSON.parse(readFileSync(positionFile, 'utf8')) as Position;
  } catch {
    position = { segment: 0, line: 0 };
  }

  const segments: Segment[] = readdirSync(dir)
    .filter((name) => /^\d{10}\.seg$/.test(name))
    .map((name) => Number(name.slice(0, 10)))
    .sort((a, b) => a - b)
    .map((seq) => {
      const { size, mtimeMs } = statSync(pathOf(seq));
      return { seq, size, writtenAt: mtimeMs, lines: [], scanned: 0 };
    });

  /** The newest segment, open for appending (and reading) while it is the one written. */
  let writing: { seq: number; fd: number } | null = null;
  function fdOf(seq: number): number {
    if (writing?.seq === seq) return writing.fd;
    if (writing) closeSync(writing.fd);
    writing = { seq, fd: openSync(pathOf(seq), 'a+', 0o600) };
    return writing.fd;
  }

  // a crash mid-write left the last line without its newline: end it, so the next report starts a
  // line of its own and the torn one is skipped by its checksum
  const last = segments[segments.length - 1];
  if (last && last.size > 0 && readAt(pathOf(last.seq), null, last.size - 1, 1)[0] !== NEWLINE) {
    writeSync(fdOf(last.seq), '\n');
    last.size += 1;
  }

  function savePosition(next: Position): void {
    position = next;
    writeFileSync(`${positionFile}.tmp`, JSON.stringify(next), { mode: 0o600 });
    renameSync(`${positionFile}.tmp`, positionFile);
  }

  /** A segment's intact lines, the bytes not yet scanned read first (only after a start, or another writer). */
  function linesOf(segment: Segment): number[] {
    if (segment.size > segment.scanned) {
      const fd = writing?.seq === segment.seq ? writing.fd : null;
      const bytes = readAt(pathOf(segment.seq), fd, segment.scanned, segment.size - segment.scanned);
      const { lines, scanned } = intactLines(bytes, segment.scanned);
      segment.lines.push(...lines);
      segment.scanned += scanned;
    }
    return segment.lines;
  }

  /** How many lines of a segment are still to send (past the delivered position). */
  function pendingCount(segment: Segment): number {
    if (segment.seq < position.segment) return 0;
    const count = linesOf(segment).length / 2;
    return segment.seq === position.segment ? Math.max(0, count - position.line) : count;
  }

  /** Up to `max` of the reports still to send from one segment, read from its file. */
  function pending(segment: Segment, max: number): AgentReport[] {
    if (segment.seq < position.segment || max <= 0) return [];
    const lines = linesOf(segment);
    const first = segment.seq === position.segment ? position.line : 0;
    const wanted = lines.slice(first * 2, (first + max) * 2);
    if (wanted.length === 0) return [];
    const from = wanted[0] as number;
    const fd = writing?.seq === segment.seq ? writing.fd : null;
    const bytes = readAt(pathOf(segment.seq), fd, from, (wanted[wanted.length - 1] as number) - from);
    const reports: AgentReport[] = [];
    for (let i = 0; i < wanted.length; i += 2) {
      try {
        reports.push(
          JSON.parse(bytes.toString('utf8', (wanted[i] as number) - from, (wanted[i + 1] as number) - from)),
        );
      } catch {
        // a checksum collision on garbage: skip it like any damaged line
      }
    }
    return reports;
  }

  /** Deletes a segment's file and forgets it. */
  function remove(segment: Segment): void {
    if (writing?.seq === segment.seq) {
      closeSync(writing.fd);
      writing = null;
    }
    rmSync(pathOf(segment.seq), { force: true });
    segments.splice(segments.indexOf(segment), 1);
  }

  /** Drops the oldest segments past the limits; counts the reports they held that were not yet sent. */
  function enforceLimits(): void {
    let total = segments.reduce((sum, segment) => sum + segment.size, 0);
    while (segments.length > 1) {
      const oldest = segments[0] as Segment; // never the segment being written (the last)
      if (total <= limits.maxBytes && now() - oldest.writtenAt <= limits.maxAgeMs) break;
      dropped += pendingCount(oldest);
      remove(oldest);
      total -= oldest.size;
      if (oldest.seq >= position.segment) savePosition({ segment: oldest.seq + 1, line: 0 });
    }
  }

  return {
    /** Appends one report (a whole line in one write). */
    async append(report: AgentReport): Promise<void> {
      let segment = segments[segments.length - 1];
      if (!segment || segment.size >= limits.segmentBytes) {
        const seq = segment ? segment.seq + 1 : Math.max(position.segment, 1);
        segment = { seq, size: 0, writtenAt: now(), lines: [], scanned: 0 };
        segments.push(segment);
      }
      const json = JSON.stringify(report);
      const line = Buffer.from(`${checksum(json)} ${json}\n`);
      const fd = fdOf(segment.seq);
      const before = segment.size;
      writeSync(fd, line);
      segment.size = fstatSync(fd).size;
      segment.writtenAt = now();
      // the usual case, nobody else wrote: the line's offsets are known without reading it back
      if (segment.scanned === before && segment.size === before + line.length) {
        segment.lines.push(before + 9, segment.size - 1);
        segment.scanned = segment.size;
      }
      enforceLimits();
    },

    /** Up to `max` of the oldest reports not yet delivered, oldest first. */
    async peek(max: number): Promise<AgentReport[]> {
      const out: AgentReport[] = [];
      for (const segment of segments) {
        if (out.length >= max) break;
        out.push(...pending(segment, max - out.length));
      }
      return out;
    },

    /** The oldest `count` reports were accepted: move past them, delete segments read to the end. */
    async acknowledge(count: number): Promise<void> {
      let left = count;
      let next = position;
      for (const segment of [...segments]) {
        if (segment.seq < next.segment) continue;
        const start = segment.seq === next.segment ? next.line : 0;
        const lines = start + pendingCount(segment);
        if (left >= lines - start) {
          left -= lines - start;
          if (segment === segments[segments.length - 1]) {
            next = { segment: segment.seq, line: lines };
          } else {
            remove(segment);
            next = { segment: segment.seq + 1, line: 0 };
          }
          if (left === 0) break;
        } else {
          next = { segment: segment.seq, line: start + left };
          left = 0;
          break;
        }
      }
      savePosition(next);
    },

    /** Reports waiting to be sent. */
    async size(): Promise<number> {
      return segments.reduce((count, segment) => count + pendingCount(segment), 0);
    },

    /** Reports dropped by the limits since the buffer was opened. */
    dropped: () => dropped,
  };
}

export type ReportBuffer = Awaited<ReturnType<typeof openBuffer>>;
