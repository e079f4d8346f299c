/** A system's script checks, as its agent last reported them (written by the ingest). */
import type { Knex } from 'knex';
import type { ScriptCheck } from '../../../contracts/systems.js';

export function createScriptChecksReader(db: Knex) {
  return {
    async ofSystem(systemId: number): Promise<ScriptCheck[]> {
      const rows = await db('script_checks')
        .where({ system_id: systemId })
        .orderBy('name')
        .select<{ name: string; state: ScriptCheck['state']; message: string; ran_at: Date; reported_at: Date }[]>(
          'name',
          'state',
          'message',
          'ran_at',
          'reported_at',
        );
      return rows.map((row) => ({
        name: row.name,
        state: row.state,
        message: row.message,
        ranAt: row.ran_at.toISOString(),
        reportedAt: row.reported_at.toISOString(),
      }));
    },
  };
}

export type ScriptChecksReader = ReturnType<typeof createScriptChecksReader>;
