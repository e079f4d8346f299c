/**
 * Customer status pages: a read-only page at /status/<slug>, without sign-in.
 *
 * - `status_pages`: one published page of a customer. The slug is a capability (24 characters of
 *   base64url, 144 random bits): the console shows it to the customer's writers, so it is kept, but
 *   the public route finds a page by `slug_hash` (SHA-256) only, so the index comparison never
 *   works on the secret itself. Rotating writes a new slug; deleting revokes it.
 * - `status_page_items`: what the page lists, in order: a system or a cluster of the same customer,
 *   each under a public display name. An item goes with its system or cluster.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE status_pages (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      title text NOT NULL,
      announcement text NOT NULL DEFAULT '',
      slug text NOT NULL,
      slug_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      rotated_at timestamptz
    );
    CREATE INDEX status_pages_customer_idx ON status_pages (customer_id);

    CREATE TABLE status_page_items (
      page_id integer NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
      position integer NOT NULL,
      system_id integer REFERENCES systems (id) ON DELETE CASCADE,
      cluster_id integer REFERENCES clusters (id) ON DELETE CASCADE,
      display_name text NOT NULL,
      PRIMARY KEY (page_id, position),
      CHECK ((system_id IS NULL) <> (cluster_id IS NULL))
    );
    CREATE INDEX status_page_items_system_idx ON status_page_items (system_id) WHERE system_id IS NOT NULL;
    CREATE INDEX status_page_items_cluster_idx ON status_page_items (cluster_id) WHERE cluster_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE status_page_items, status_pages');
}
