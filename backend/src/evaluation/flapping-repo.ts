/** SQL of flapping (migration 0011), inside the evaluation run's transaction. */
import type { Knex } from 'knex';

export interface IdentityRef {
  ruleKey: string;
  systemId: number;
  instance: string;
}

export function createFlappingRepo(db: Knex) {
  return {
    /** How often each identity was raised at or after `since`. */
    async raisesSince(identities: readonly IdentityRef[], since: Date, trx: Knex = db): Promise<number[]> {
      if (!identities.length) return [];
      const { rows } = await trx.raw<{ rows: { n: number }[] }>(
        `SELECT (SELECT count(*)::int FROM alerts a
                  WHERE a.rule_key = k.rule_key AND a.system_id = k.system_id AND a.instance = k.instance
                    AND a.started_at >= ?) AS n
           FROM unnest(?::text[], ?::int[], ?::text[]) WITH ORDINALITY AS k(rule_key, system_id, instance, ord)
          ORDER BY k.ord`,
        [since, identities.map((i) => i.ruleKey), identities.map((i) => i.systemId), identities.map((i) => i.instance)],
      );
      return rows.map((r) => r.n);
    },
    async markFlapping(alertIds: readonly number[], now: Date, trx: Knex = db): Promise<void> {
      if (alertIds.length)
        await trx('alerts')
          .whereRaw('id = ANY(?::bigint[])', [[...alertIds]])
          .update({ flapping_since: now });
    },
    /** Flapping alerts whose condition cleared (`since` now) or came back (null). */
    async setClearSince(alertIds: readonly number[], since: Date | null, trx: Knex = db): Promise<void> {
      if (alertIds.length)
        await trx('alerts')
          .whereRaw('id = ANY(?::bigint[])', [[...alertIds]])
          .update({ clear_since: since });
    },
  };
}

export type FlappingRepo = ReturnType<typeof createFlappingRepo>;
