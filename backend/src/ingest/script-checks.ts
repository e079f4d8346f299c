/**
 * What the ingest does with a request's script checks: the newest report's `scripts` of a system is
 * written to `script_checks`, and only when it says something new (a state, a message or a run).
 */
import type { CheckResult } from '../../../contracts/agent-report.js';
import { createNewestTextRecorder } from './newest-text.js';
import type { ScriptChecksRepo } from './script-checks-repo.js';

export function createScriptChecksRecorder(repo: ScriptChecksRepo) {
  return createNewestTextRecorder<CheckResult>({
    of: (report) => report.scripts,
    fingerprint: (checks) =>
      checks.map((c) => `${c.name}\u0000${c.state}\u0000${c.ran}\u0000${c.message}`).join('\u0001'),
    write: (systemId, checks, reportedAt) => repo.record(systemId, checks, reportedAt),
  });
}

export type ScriptChecksRecorder = ReturnType<typeof createScriptChecksRecorder>;
