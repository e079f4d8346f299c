/**
 * What the ingest does with a request's script checks: the newest report's `scripts` of a system is
 * written to `script_checks`, and only when it says something new (a state, a message or a run):
 * the agent repeats each check's last result in every report, and most reports change nothing.
 */
import type { AgentBody, CheckResult } from '../../../contracts/agent-report.js';
import type { ScriptChecksRepo } from './script-checks-repo.js';

/** Systems whose last written checks are remembered; past it the oldest is forgotten (one more write). */
const REMEMBERED_SYSTEMS = 20_000;

const fingerprint = (checks: readonly CheckResult[]) =>
  checks.map((c) => `${c.name}\u0000${c.state}\u0000${c.ran}\u0000${c.message}`).join('\u0001');

export function createScriptChecksRecorder(repo: ScriptChecksRepo) {
  /** Per system, the newest report whose checks were seen, and what they said. */
  const written = new Map<number, { ms: number; print: string }>();
  return {
    /** The newest of `reports` (those within the storage window) that carries checks, if it says something new. */
    async record(systemId: number, reports: AgentBody['reports']): Promise<void> {
      let newest: { ms: number; checks: CheckResult[] } | null = null;
      for (const report of reports) {
        const ms = Date.parse(report.ts);
        if (report.scripts && (!newest || ms > newest.ms)) newest = { ms, checks: report.scripts };
      }
      if (!newest) return;
      const known = written.get(systemId);
      if (known && newest.ms <= known.ms) return; // a replayed older report: the newer one stands
      const print = fingerprint(newest.checks);
      written.delete(systemId);
      written.set(systemId, { ms: newest.ms, print });
      if (written.size > REMEMBERED_SYSTEMS) written.delete(written.keys().next().value as number);
      if (known?.print === print) return;
      try {
        await repo.record(systemId, newest.checks, new Date(newest.ms));
      } catch (error) {
        written.delete(systemId); // written again with the next report
        throw error;
      }
    },
  };
}

export type ScriptChecksRecorder = ReturnType<typeof createScriptChecksRecorder>;
