/**
 * The on-disk buffer of reports not yet accepted. Every report is appended here
 * before it is sent and taken off only after the server's 200, so nothing is lost while the server
 * is away or across a restart of the agent.
 *
 * Append-only segments (`<seq>.seg`, about 1 MiB each) of lines `<crc32 hex> <json>`; a line torn by
 * a crash (no newline, or a checksum that does not match) is skipped. What was delivered is a
 * position (segment, line) in `position.json`, written by rename; a segment read to its end is
 * deleted. Bounded by age and size: the oldest segments go first, and the reports dropped are
 * counted. Each segment's lines are checked once (offsets kept in memory, only appended bytes read
 * again), so a collection's append, count, peek and acknowledgement cost the new report, not the
 * segment's megabyte.
 */
import { appendFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

export async function openBuffer(dir: string, limits: BufferLimits = DEFAULT_LIMITS, now: () => number = Date.now) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let dropped = 0;
  const positionFile = join(dir, 'position.json');
  let position: Position = await readFile(positionFile, 'utf8').then(
    (text) => JSON.parse(text) as Position,
    () => ({ segment: 0, line: 0 }),
  );

  const segments = async () =>
    (await readdir(dir))
      .filter((name) => /^\d{10}\.seg$/.test(name))
      .map((name) => Number(name.slice(0, 10)))
      .sort((a, b) => a - b);

  // a crash mid-write left the last line without its newline: end it, so the next report starts a
  // line of its own and the torn one is skipped by its checksum
  const existing = await segments();
  const last = existing[existing.length - 1];
  if (last !== undefined) {
    const text = await readFile(join(dir, segmentName(last)), 'utf8');
    if (text.length > 0 && !text.endsWith('\n')) await appendFile(join(dir, segmentName(last)), '\n');
  }

  async function savePosition(next: Position): Promise<void> {
    position = next;
    await writeFile(`${positionFile}.tmp`, JSON.stringify(next), { mode: 0o600 });
    await rename(`${positionFile}.tmp`, positionFile);
  }

  /**
   * Each segment's intact lines as offsets (start, end of its JSON), scanned once: a segment only
   * grows, so a look reads just the bytes appended since the last one. A report is parsed only when
   * it is to be sent, never again for a count or for the lines before the delivered position.
   */
  const scans = new Map<number, { bytes: number; lines: number[] }>();

  /** The segment's intact lines, with the bytes appended since the last look scanned (none when it is gone). */
  async function linesOf(seq: number): Promise<number[]> {
    const known = scans.get(seq) ?? { bytes: 0, lines: [] };
    const handle = await open(join(dir, segmentName(seq)), 'r').catch(() => null);
    if (!handle) {
      scans.delete(seq);
      return [];
    }
    try {
      const { size } = await handle.stat();
      if (size > known.bytes) {
        const { buffer } = await handle.read(Buffer.alloc(size - known.bytes), 0, size - known.bytes, known.bytes);
        const { lines, scanned } = intactLines(buffer, known.bytes);
        known.lines.push(...lines);
        known.bytes += scanned;
      }
    } finally {
      await handle.close();
    }
    scans.set(seq, known);
    return known.lines;
  }

  /** How many lines of a segment are still to send (past the delivered position). */
  async function pendingCount(seq: number): Promise<number> {
    if (seq < position.segment) return 0;
    const count = (await linesOf(seq)).length / 2;
    return seq === position.segment ? Math.max(0, count - position.line) : count;
  }

  /** Up to `max` of the reports still to send from one segment, read from its file. */
  async function pending(seq: number, max: number): Promise<AgentReport[]> {
    if (seq < position.segment || max <= 0) return [];
    const lines = await linesOf(seq);
    const first = seq === position.segment ? position.line : 0;
    const wanted = lines.slice(first * 2, (first + max) * 2);
    if (wanted.length === 0) return [];
    const from = wanted[0] as number;
    const bytes = Buffer.alloc((wanted[wanted.length - 1] as number) - from);
    const handle = await open(join(dir, segmentName(seq)), 'r').catch(() => null);
    if (!handle) return [];
    try {
      await handle.read(bytes, 0, bytes.length, from);
    } finally {
      await handle.close();
    }
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

  /** Drops the oldest segments past the limits; counts the reports they held that were not yet sent. */
  async function enforceLimits(): Promise<void> {
    const all = await segments();
    const sizes = await Promise.all(all.map((seq) => stat(join(dir, segmentName(seq)))));
    let total = sizes.reduce((sum, s) => sum + s.size, 0);
    for (const [index, seq] of all.entries()) {
      if (index === all.length - 1) break; // never the segment being written
      const info = sizes[index] as { size: number; mtimeMs: number };
      if (total <= limits.maxBytes && now() - info.mtimeMs <= limits.maxAgeMs) break;
      dropped += await pendingCount(seq);
      await rm(join(dir, segmentName(seq)), { force: true });
      scans.delete(seq);
      total -= info.size;
      if (seq >= position.segment) await savePosition({ segment: seq + 1, line: 0 });
    }
  }

  return {
    /** Appends one report (a whole line in one write). */
    async append(report: AgentReport): Promise<void> {
      const all = await segments();
      let seq = all[all.length - 1] ?? Math.max(position.segment, 1);
      const size = await stat(join(dir, segmentName(seq))).then(
        (s) => s.size,
        () => 0,
      );
      if (size >= limits.segmentBytes) seq += 1;
      const json = JSON.stringify(report);
      await appendFile(join(dir, segmentName(seq)), `${checksum(json)} ${json}\n`, { mode: 0o600 });
      await enforceLimits();
    },

    /** Up to `max` of the oldest reports not yet delivered, oldest first. */
    async peek(max: number): Promise<AgentReport[]> {
      const out: AgentReport[] = [];
      for (const seq of await segments()) {
        if (out.length >= max) break;
        out.push(...(await pending(seq, max - out.length)));
      }
      return out;
    },

    /** The oldest `count` reports were accepted: move past them, delete segments read to the end. */
    async acknowledge(count: number): Promise<void> {
      let left = count;
      let next = position;
      for (const seq of await segments()) {
        if (seq < next.segment) continue;
        const start = seq === next.segment ? next.line : 0;
        const lines = start + (await pendingCount(seq));
        const all = await segments();
        const isLast = seq === all[all.length - 1];
        if (left >= lines - start) {
          left -= lines - start;
          if (isLast) {
            next = { segment: seq, line: lines };
          } else {
            await rm(join(dir, segmentName(seq)), { force: true });
            scans.delete(seq);
            next = { segment: seq + 1, line: 0 };
          }
          if (left === 0) break;
        } else {
          next = { segment: seq, line: start + left };
          left = 0;
          break;
        }
      }
      await savePosition(next);
    },

    /** Reports waiting to be sent. */
    async size(): Promise<number> {
      let count = 0;
      for (const seq of await segments()) count += await pendingCount(seq);
      return count;
    },

    /** Reports dropped by the limits since the buffer was opened. */
    dropped: () => dropped,
  };
}

export type ReportBuffer = Awaited<ReturnType<typeof openBuffer>>;
