/**
 * Containers' images (docs/protocol.md "Containers and processes"): the image each container of a
 * system runs, as its agent last reported it in the report's `containers`, one row per (system,
 * container name). The latest per container only, no history: the series carry the figures over
 * time, this row the one text they cannot. A container its agent no longer lists (removed) loses
 * its row with the next report that lists the others.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE container_images (
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      name text NOT NULL,
      image text NOT NULL,
      -- the time of the report that said so: an older report never overwrites a newer one
      reported_at timestamptz NOT NULL,
      PRIMARY KEY (system_id, name)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE container_images');
}
