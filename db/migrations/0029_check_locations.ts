/**
 * Network checks run from several places (docs/decisions.md "Checks run by agents, and the quorum").
 *
 * - `checks.locations` names 'argus' (the server) and agents as 'system:<id>' (systems of the
 *   check's customer); `checks.quorum` is how many of them must see the check down for it to be
 *   DOWN (null: all but one, at least one).
 * - `check_locations`: each location's own state, failures in a row and last result, so the check's
 *   state is decided from all of them and the console shows each. The server's checks carry their
 *   state over as the 'argus' location's.
 * - An agent reads the checks assigned to it with every report's answer: the GIN index finds them.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE checks ADD COLUMN quorum integer CHECK (quorum BETWEEN 1 AND 20);

    CREATE TABLE check_locations (
      check_id integer NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
      location text NOT NULL CHECK (location = 'argus' OR location ~ '^system:[0-9]+$'),
      state text NOT NULL CHECK (state IN ('PENDING', 'UP', 'DOWN', 'DEGRADED')),
      state_since timestamptz,
      failures integer NOT NULL DEFAULT 0,
      last_result jsonb,
      -- the time of the last result: an older one (a replayed buffer) never goes back
      at timestamptz NOT NULL,
      PRIMARY KEY (check_id, location)
    );

    INSERT INTO check_locations (check_id, location, state, state_since, failures, last_result, at)
    SELECT id, 'argus', state, state_since, failures, last_result, (last_result->>'at')::timestamptz
      FROM checks WHERE 'argus' = ANY (locations) AND last_result IS NOT NULL AND state <> 'PAUSED';

    CREATE INDEX checks_locations_idx ON checks USING gin (locations) WHERE enabled;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX checks_locations_idx;
    DROP TABLE check_locations;
    ALTER TABLE checks DROP COLUMN quorum;
  `);
}
