/**
 * An agent's system deleted leaves no place behind in the checks it ran (docs/decisions.md "A deleted
 * agent leaves the checks it ran"): a trigger on `systems`, so every way a system goes (its own
 * deletion, its customer's) takes it out in the same transaction.
 *
 * - `system:<id>` leaves `checks.locations`, so the agent's assignment goes with it and the quorum
 *   is counted over the places left; an explicit quorum never stays above them.
 * - Its `check_locations` row goes: no result of a place that no longer exists.
 * - A check that ran from that agent alone has no place left: it is paused (PAUSED, its system
 *   STANDBY, as a pause through the API), until someone names a place again.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION agent_leaves_checks() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      place text := 'system:' || OLD.id;
    BEGIN
      DELETE FROM check_locations WHERE location = place;
      WITH changed AS (
        UPDATE checks SET
            locations = array_remove(locations, place),
            quorum = CASE WHEN quorum IS NOT NULL AND cardinality(locations) > 1
              THEN LEAST(quorum, cardinality(locations) - 1) END,
            enabled = enabled AND cardinality(locations) > 1,
            state = CASE WHEN cardinality(locations) > 1 THEN state ELSE 'PAUSED' END,
            failures = CASE WHEN cardinality(locations) > 1 THEN failures ELSE 0 END,
            state_since = CASE WHEN cardinality(locations) > 1 THEN state_since ELSE now() END,
            updated_at = now()
          -- a check whose own system goes in the same statement (its customer deleted) goes whole
          WHERE locations @> ARRAY[place] AND EXISTS (SELECT 1 FROM systems s WHERE s.id = checks.id)
          RETURNING id, locations
      )
      UPDATE systems SET status = 'STANDBY', updated_at = now()
        WHERE id IN (SELECT id FROM changed WHERE cardinality(locations) = 0);
      RETURN NULL;
    END $$;

    CREATE TRIGGER agent_leaves_checks AFTER DELETE ON systems
      FOR EACH ROW WHEN (OLD.kind = 'agent') EXECUTE FUNCTION agent_leaves_checks();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER agent_leaves_checks ON systems;
    DROP FUNCTION agent_leaves_checks();
  `);
}
