/**
 * Script checks as the agent last reported them (`script_checks`, one row per system and check):
 * the text of the report's `checks` channel, beside the `script.state` series the rules read.
 */
import type { Knex } from 'knex';
import type { CheckResult } from '../../../contracts/agent-report.js';

export function createScriptChecksRepo(db: Knex) {
  return {
    /**
     * The system's checks as of the report at `reportedAt`: each row written unless a newer report
     * wrote it already, and checks this report no longer names (a file removed) deleted.
     */
    async record(systemId: number, checks: readonly CheckResult[], reportedAt: Date): Promise<void> {
      const names = checks.map((c) => c.name);
      await db.raw(
        `WITH gone AS (
           DELETE FROM script_checks
            WHERE system_id = :systemId AND reported_at <= :reportedAt AND NOT (name = ANY(:names::text[]))
         )
         INSERT INTO script_checks (system_id, name, state, message, ran_at, reported_at)
         SELECT :systemId, name, state, message, ran_at, :reportedAt
           FROM unnest(:names::text[], :states::text[], :messages::text[], :ran::timestamptz[])
             AS c(name, state, message, ran_at)
         ON CONFLICT (system_id, name) DO UPDATE
            SET state = excluded.state, message = excluded.message, ran_at = excluded.ran_at,
                reported_at = excluded.reported_at
          WHERE script_checks.reported_at <= excluded.reported_at`,
        {
          systemId,
          reportedAt,
          names,
          states: checks.map((c) => c.state),
          messages: checks.map((c) => c.message),
          ran: checks.map((c) => c.ran),
        },
      );
    },
  };
}

export type ScriptChecksRepo = ReturnType<typeof createScriptChecksRepo>;
