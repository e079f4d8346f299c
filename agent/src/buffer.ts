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
 */
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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
const checksum = (json: string) => crc32(json).toString(16).padStart(8, '0');

/** The intact reports of a segment's text, in order; a torn or damaged line is skipped. */
export function readSegment(text: string): AgentReport[] {
  const reports: AgentReport[] = [];
  const lines = text.split('\n');
  lines.pop(); // after the last newline: empty, or a line torn before its newline
  for (const line of lines) {
    const json = line.slice(9);
    if (line[8] !== ' ' || line.slice(0, 8) !== checksum(json)) continue;
    try {
      reports.push(JSON.parse(json) as AgentReport);
    } catch {
      // a checksum collision on garbage: skip it like any damaged line
    }
  }
  return reports;
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

  /** The reports still to send from one segment (past the delivered position). */
  async function pending(seq: number): Promise<AgentReport[]> {
    const reports = readSegment(await readFile(join(dir, segmentName(seq)), 'utf8').catch(() => ''));
    if (seq < position.segment) return [];
    return seq === position.segment ? reports.slice(position.line) : reports;
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
      dropped += (await pending(seq)).length;
      await rm(join(dir, segmentName(seq)), { force: true });
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
        out.push(...(await pending(seq)).slice(0, max - out.length));
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
        const lines = start + (await pending(seq)).length;
        const all = await segments();
        const isLast = seq === all[all.length - 1];
        if (left >= lines - start) {
          left -= lines - start;
          if (isLast) {
            next = { segment: seq, line: lines };
          } else {
            await rm(join(dir, segmentName(seq)), { force: true });
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
      for (const seq of await segments()) count += (await pending(seq)).length;
      return count;
    },

    /** Reports dropped by the limits since the buffer was opened. */
    dropped: () => dropped,
  };
}

export type ReportBuffer = Awaited<ReturnType<typeof openBuffer>>;
