/**
 * The SQL of recording check results (results.ts decides what to write): one transaction of three
 * prepared statements, whatever the number of runs. The checks are locked in id order (two writers
 * sharing checks never wait on each other in a circle; the rows written after it are these checks'
 * own, so they are taken under it), their places are read once the locks are held, and everything
 * is written in one statement: the runs' rows, the newest values, last seen, the places' rows and
 * the checks whose state changed.
 */
import type { Knex } from 'knex';
import { inPreparedTransaction } from '../lib/prepared-transaction.js';
import { mapLocation, mapRow, type CheckRow, type LocationRow, type StoredRun } from './check-rows.js';

// NO KEY UPDATE: enough to serialise the quorum decisions of a check, and it does not block
// the key-share locks of rows referencing it. The sealed headers are never needed here, the
// check's own last result only by a heartbeat of a check whose places have none
const LOCK_CHECKS = `
SELECT c.id, s.customer_id, s.cluster_id, s.name, c.type, c.settings, NULL AS sealed_headers, c.interval_s,
       c.timeout_s, c.retries, c.retry_interval_s, c.max_response_ms, c.locations, c.quorum, c.enabled,
       c.state, c.state_since, c.failures, CASE WHEN c.id = ANY ($2::int[]) THEN c.last_result END AS last_result,
       c.created_at, c.updated_at
  FROM checks c JOIN systems s ON s.id = c.id
 WHERE c.id = ANY ($1::int[])
 ORDER BY c.id
   FOR NO KEY UPDATE OF c`;

// a place's last result is read only where a heartbeat repeats it: a run brings its own
const READ_PLACES = `
SELECT check_id, location, state, state_since, failures, at,
       CASE WHEN check_id = ANY ($2::int[]) THEN last_result END AS last_result
  FROM check_locations WHERE check_id = ANY ($1::int[])`;

export const WRITE_FOR_PROFILE = `
WITH runs AS MATERIALIZED (
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS r(id int, time timestamptz, names text[], instances text[], vals float8[], state text,
         state_since timestamptz, failures int, last_result jsonb)
),
places AS (
  INSERT INTO check_locations AS l (check_id, location, state, state_since, failures, last_result, at)
  SELECT * FROM jsonb_to_recordset($2::jsonb)
    AS p(check_id int, location text, state text, state_since timestamptz, failures int, last_result jsonb,
         at timestamptz)
  ON CONFLICT (check_id, location) DO UPDATE SET (state, state_since, failures, last_result, at) =
    (excluded.state, excluded.state_since, excluded.failures, excluded.last_result, excluded.at)
),
-- a set's id looked up once a statement: the runs of a report share a few layouts
sets AS MATERIALIZED (
  SELECT names, instances, metric_series_set_id(names, instances) AS set_id
    FROM (SELECT DISTINCT names, instances FROM runs) d
),
inserted AS (
  INSERT INTO metrics (time, system_id, set_id, vals)
  SELECT r.time, r.id, s.set_id, r.vals::real[] FROM runs r JOIN sets s USING (names, instances)
  ON CONFLICT (system_id, time) DO NOTHING
),
latest AS (
  INSERT INTO system_latest AS l (system_id, names, instances, times, vals)
  SELECT id, names, instances, array_fill(time, ARRAY[cardinality(names)]), vals FROM runs
  ON CONFLICT (system_id) DO UPDATE SET (names, instances, times, vals) = (
    SELECT m.names, m.instances, m.times, m.vals
    FROM system_latest_merge(l.names, l.instances, l.times, l.vals,
                             excluded.names, excluded.instances, excluded.times, excluded.vals) m)
),
seen AS (
  UPDATE systems s SET last_seen_at = GREATEST(s.last_seen_at, r.time),
         status = CASE WHEN s.status IN ('WARNING', 'CRITICAL') THEN s.status ELSE 'ONLINE' END
    FROM runs r WHERE s.id = r.id
)
UPDATE checks c SET state = r.state, state_since = r.state_since, failures = r.failures,
         last_result = COALESCE(r.last_result, c.last_result)
  FROM runs r WHERE c.id = r.id AND r.state IS NOT NULL`;

/** What the recording writes: the places that moved on, and the rows (a check's state only where it changed). */
export interface ResultsToWrite {
  places: LocationRow[];
  runs: StoredRun[];
}

const runJson = (r: StoredRun) => ({
  id: r.id,
  time: r.time.toISOString(),
  names: r.names,
  instances: r.instances,
  vals: r.vals,
  state: r.state?.state ?? null,
  state_since: r.state?.stateSince?.toISOString() ?? null,
  failures: r.state?.failures ?? null,
  last_result: r.state?.lastResult ?? null,
});

const placeJson = (p: LocationRow) => ({
  check_id: p.checkId,
  location: p.location,
  state: p.state,
  state_since: p.stateSince?.toISOString() ?? null,
  failures: p.failures,
  last_result: p.lastResult,
  at: p.at.toISOString(),
});

/** One place once (an upsert touches a row once a statement): its newest state, in key order. */
function newestPlaces(places: LocationRow[]): LocationRow[] {
  const byKey = new Map<string, LocationRow>();
  for (const place of places) byKey.set(`${place.checkId}\u0000${place.location}`, place);
  return [...byKey.values()].sort((a, b) => a.checkId - b.checkId || (a.location < b.location ? -1 : 1));
}

export function createResultsRepo(db: Knex) {
  return {
    /**
     * Locks the checks of `ids`, reads their places (with the last result of `heartbeats`'), lets
     * `decide` say what to write and writes it, in one transaction. A check's second run of the
     * batch goes into a statement of its own (an upsert touches a row once).
     */
    async recordResults(
      ids: number[],
      heartbeats: number[],
      decide: (checks: CheckRow[], places: LocationRow[]) => ResultsToWrite,
    ): Promise<ResultsToWrite> {
      return inPreparedTransaction(db, async (query) => {
        const checks = (await query('checks-lock', LOCK_CHECKS, [ids, heartbeats])).map(mapRow);
        const places = checks.length
          ? (await query('checks-places', READ_PLACES, [checks.map((c) => c.id), heartbeats])).map(mapLocation)
          : [];
        const written = decide(checks, places);
        let runs = [...written.runs].sort((a, b) => a.id - b.id);
        let placesJson = JSON.stringify(newestPlaces(written.places).map(placeJson));
        while (runs.length) {
          const seen = new Set<number>();
          const now = new Set(runs.filter((r) => !seen.has(r.id) && seen.add(r.id)));
          await query('checks-write', WRITE_FOR_PROFILE, [JSON.stringify([...now].map(runJson)), placesJson]);
          runs = runs.filter((r) => !now.has(r));
          placesJson = '[]';
        }
        if (placesJson !== '[]') await query('checks-write', WRITE_FOR_PROFILE, ['[]', placesJson]);
        return written;
      });
    },
  };
}
