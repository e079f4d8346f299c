/**
 * Script checks as the agent last reported them (`script_checks`, one row per system and check):
 * the text of the report's `checks` channel, beside the `script.state` series the rules read.
 * Checks a report no longer names (a file removed) are deleted (`newest-text-repo.ts`).
 */
import type { Knex } from 'knex';
import type { CheckResult } from '../../../contracts/agent-report.js';
import { createNewestTextRepo } from './newest-text-repo.js';

export function createScriptChecksRepo(db: Knex) {
  return createNewestTextRepo<CheckResult>(db, {
    table: 'script_checks',
    columns: [
      { column: 'state', type: 'text', of: (c) => c.state },
      { column: 'message', type: 'text', of: (c) => c.message },
      { column: 'ran_at', type: 'timestamptz', of: (c) => c.ran },
    ],
  });
}

export type ScriptChecksRepo = ReturnType<typeof createScriptChecksRepo>;
