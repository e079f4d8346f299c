/**
 * The one way the ingest keeps a report's text channels (script checks, containers' images): per
 * system, only the newest report that carries the channel counts, and it is written only when it
 * says something new. The agent repeats the whole list in every report, and most reports change
 * nothing: a fingerprint of the last list written, in memory, spares the database those writes.
 */
import type { AgentBody, AgentReport } from '../../../contracts/agent-report.js';

/** Systems whose last written list is remembered; past it the oldest is forgotten (one more write). */
const REMEMBERED_SYSTEMS = 20_000;

export interface NewestText<T> {
  /** The channel's list in a report, or undefined when the report does not carry it. */
  of(report: AgentReport): readonly T[] | undefined;
  /** Equal for lists that would write the same rows. */
  fingerprint(list: readonly T[]): string;
  write(systemId: number, list: readonly T[], reportedAt: Date): Promise<void>;
}

export function createNewestTextRecorder<T>(channel: NewestText<T>) {
  /** Per system, the newest report whose list was seen, and what it said. */
  const written = new Map<number, { ms: number; print: string }>();
  return {
    /** The newest of `reports` (those within the storage window) that carries the list, if it says something new. */
    async record(systemId: number, reports: AgentBody['reports']): Promise<void> {
      let newest: { ms: number; list: readonly T[] } | null = null;
      for (const report of reports) {
        const list = channel.of(report);
        const ms = Date.parse(report.ts);
        if (list && (!newest || ms > newest.ms)) newest = { ms, list };
      }
      if (!newest) return;
      const known = written.get(systemId);
      if (known && newest.ms <= known.ms) return; // a replayed older report: the newer one stands
      const print = channel.fingerprint(newest.list);
      written.delete(systemId);
      written.set(systemId, { ms: newest.ms, print });
      if (written.size > REMEMBERED_SYSTEMS) written.delete(written.keys().next().value as number);
      if (known?.print === print) return;
      try {
        await channel.write(systemId, newest.list, new Date(newest.ms));
      } catch (error) {
        written.delete(systemId); // written again with the next report
        throw error;
      }
    },
  };
}

export type NewestTextRecorder = ReturnType<typeof createNewestTextRecorder>;
