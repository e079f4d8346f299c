/**
 * OOM kills and failed services as events, each sent once, from the systemd
 * journal where `journalctl` runs and may read it (root, or the `systemd-journal` / `adm` group):
 * - `mem.oom_kill` (WARNING): the kernel's "Out of memory: Killed process 1234 (java)" and its
 *   cgroup twin, kernel messages at priority err;
 * - `service.failed` (WARNING): systemd's "unit failed with result" entry (MESSAGE_ID
 *   d9b373ed55a64feb8242e02dbe79a49c, logged by PID 1 for system units), e.g. "nginx.service failed
 *   (exit-code)".
 * One journalctl call a minute at most asks only for those entries after the journal cursor kept in
 * `<state_dir>/journal.json`; the cursor moves on only once the report carrying their events is in
 * the buffer (like boot.json), so a crash in between sends them again rather than never. The very
 * first start looks from that moment on: the journal's past is not replayed as news.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_EVENTS_PER_REPORT } from '../../contracts/agent-report-limits.js';
import type { RunTool } from './run-tool.js';
import type { AgentEvent } from './sample.js';

export const UNIT_FAILURE_RESULT = 'd9b373ed55a64feb8242e02dbe79a49c';
const OOM_KILL = /^((?:Memory cgroup )?[Oo]ut of memory): Killed process (\d+) \(([^)]*)\)/;
/** At most this many entries a call, so a flood of kernel errors stays within the tool runner's 1 MiB. */
const MAX_ENTRIES = 300;
/** The most events a report may carry. */
export const MAX_EVENTS = MAX_EVENTS_PER_REPORT;

interface Position {
  cursor?: string;
  /** Epoch seconds of the first start, before any entry was seen. */
  since?: number;
}

/** Printable, as the report's schema wants it (a process name may hold anything). */
const printable = (text: string) => text.replace(/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/gu, '?').slice(0, 200);

/** The event one journal entry (journalctl -o json) tells of, or null. */
export function eventOf(entry: Record<string, unknown>): AgentEvent | null {
  const message = typeof entry['MESSAGE'] === 'string' ? entry['MESSAGE'] : '';
  if (entry['_TRANSPORT'] === 'kernel') {
    const oom = OOM_KILL.exec(message);
    return oom
      ? {
          type: 'mem.oom_kill',
          severity: 'WARNING',
          message: printable(`${oom[1]}: the kernel killed process ${oom[2]} (${oom[3]})`),
        }
      : null;
  }
  if (entry['MESSAGE_ID'] === UNIT_FAILURE_RESULT && typeof entry['UNIT'] === 'string') {
    const result = typeof entry['UNIT_RESULT'] === 'string' ? ` (${entry['UNIT_RESULT']})` : '';
    return { type: 'service.failed', severity: 'WARNING', message: printable(`${entry['UNIT']} failed${result}`) };
  }
  return null;
}

/** journalctl's arguments: the entries after `position`, kernel errors or system units failing. */
export function journalArgs(position: Position): string[] {
  return [
    '--no-pager',
    '--quiet',
    '--output=json',
    '--output-fields=MESSAGE,MESSAGE_ID,UNIT,UNIT_RESULT,_TRANSPORT',
    `--lines=${MAX_ENTRIES}`,
    position.cursor ? `--after-cursor=${position.cursor}` : `--since=@${position.since ?? 0}`,
    '_TRANSPORT=kernel',
    'PRIORITY=3',
    '+',
    '_PID=1',
    `MESSAGE_ID=${UNIT_FAILURE_RESULT}`,
  ];
}

/** journalctl at most once a minute (a spawn costs the agent about 1.5 ms of CPU); an event waits that long at most. */
export const JOURNAL_EVERY_MS = 60_000;

export function journalWatch(run: RunTool, stateDir: string, now: () => number = Date.now) {
  const file = join(stateDir, 'journal.json');
  let next: Position | null = null;
  let lastRead = -Infinity;
  return {
    async events(): Promise<AgentEvent[]> {
      next = null;
      if (now() - lastRead < JOURNAL_EVERY_MS) return [];
      lastRead = now();
      const known = await readFile(file, 'utf8').then(
        (text) => JSON.parse(text) as Position,
        () => null,
      );
      const position: Position = known ?? { since: Math.floor(now() / 1000) };
      next = known ? null : position;
      const answer = await run('journalctl', journalArgs(position));
      if (!answer || answer.code !== 0) return [];
      const events: AgentEvent[] = [];
      for (const line of answer.stdout.split('\n')) {
        if (!line.trim()) continue;
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // a line cut off: its entry comes again after the cursor
        }
        const event = eventOf(entry);
        if (event && events.length === MAX_EVENTS) break; // the rest ride on the next report
        if (event) events.push(event);
        if (typeof entry['__CURSOR'] === 'string') next = { cursor: entry['__CURSOR'] };
      }
      return events;
    },
    /** The report carrying them is in the buffer: look after them from now on. */
    async commit(): Promise<void> {
      if (!next) return;
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      await writeFile(`${file}.tmp`, JSON.stringify(next), { mode: 0o600 });
      await rename(`${file}.tmp`, file);
      next = null;
    },
  };
}
