/**
 * Network checks (docs/decisions.md "Network checks").
 *
 * - `systems.kind`: 'agent' (a host with an agent) or 'check'. A check is backed by a system row of
 *   its own (same id): its name, customer and cluster, status, newest values (`system_latest`),
 *   samples (`metrics`, one row per run), alerts, maintenance windows, reports and status pages are
 *   the systems' own, so the evaluation run raises and resolves a check's alerts unchanged. Lists of
 *   agents (systems page, overview, live snapshot, search, enrolment counts) keep to kind 'agent'.
 * - `checks`: what to check and how often, keyed by that system id; its state and last result are
 *   kept on the row (read without touching the samples). Secret header values are sealed in
 *   `sealed_headers` (one sealed JSON object per check).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE systems ADD COLUMN kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'check'));

    CREATE TABLE checks (
      id integer PRIMARY KEY REFERENCES systems (id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('http', 'tcp', 'dns', 'ping')),
      settings jsonb NOT NULL,
      sealed_headers text,
      interval_s integer NOT NULL CHECK (interval_s BETWEEN 20 AND 3600),
      timeout_s integer NOT NULL CHECK (timeout_s BETWEEN 1 AND 60),
      retries integer NOT NULL CHECK (retries BETWEEN 0 AND 10),
      retry_interval_s integer NOT NULL CHECK (retry_interval_s BETWEEN 20 AND 3600),
      max_response_ms integer CHECK (max_response_ms > 0),
      -- 'argus' (the server); an agent's location will be 'system:<id>'
      locations text[] NOT NULL DEFAULT '{argus}',
      enabled boolean NOT NULL DEFAULT true,
      state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'UP', 'DOWN', 'DEGRADED', 'PAUSED')),
      state_since timestamptz,
      failures integer NOT NULL DEFAULT 0,
      last_result jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- the server's runner loads the enabled checks it runs
    CREATE INDEX checks_runnable_idx ON checks (id) WHERE enabled AND 'argus' = ANY (locations);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM systems WHERE kind = 'check';
    DROP TABLE checks;
    ALTER TABLE systems DROP COLUMN kind;
  `);
}
