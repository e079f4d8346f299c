/**
 * Raw samples as one row per report (docs/decisions.md "One row per report").
 *
 * - `metric_series_sets`: the ordered series (names and instances) of a report, stored once and
 *   shared by every report with the same series; a disk mounted or a NIC added makes a new set.
 *   Never deleted (a few rows a system; raw rows and rollups refer to them).
 * - `metrics` (new): `(time, system_id, set_id, vals real[])`, `vals[k]` the value of the set's
 *   k-th series. A report is stored once: unique on (system_id, time).
 * - `metrics_avg/min/max(real[])`: element-wise aggregates for the rollups. SQL-standard bodies:
 *   bound when created, so a rollup refresh (which runs with a restricted search_path) finds them.
 * - `metric_samples`: the rows as one sample a row, for tools and tests; writable row by row (an
 *   INSTEAD OF INSERT trigger merges the sample into its report's row, adding its series).
 * - An installation's per-sample table (and its rollups, on TimescaleDB) is renamed `metrics_legacy`
 *   (`metrics_5m_legacy`, `metrics_1h_legacy`), untouched: its policies keep running, the charts read
 *   it for the time before the upgrade, and it is dropped once its retention has emptied it. A fresh
 *   database's empty per-sample table is dropped at once.
 */
import type { Knex } from 'knex';

const LEGACY_ROLLUPS = ['metrics_5m', 'metrics_1h'];

async function exists(knex: Knex, relation: string): Promise<boolean> {
  const result = (await knex.raw('SELECT to_regclass(?) IS NOT NULL AS found', [relation])) as {
    rows: { found: boolean }[];
  };
  return result.rows[0]?.found === true;
}

async function empty(knex: Knex, relation: string): Promise<boolean> {
  const result = (await knex.raw(`SELECT NOT EXISTS (SELECT 1 FROM ${relation}) AS empty`)) as {
    rows: { empty: boolean }[];
  };
  return result.rows[0]?.empty === true;
}

/** Keeps the per-sample table and its rollups under their legacy names, or drops them when empty. */
async function setAsideSampleRows(knex: Knex): Promise<void> {
  const rollups: string[] = [];
  for (const view of LEGACY_ROLLUPS) if (await exists(knex, view)) rollups.push(view);
  let keep = !(await empty(knex, 'metrics'));
  for (const view of rollups) keep ||= !(await empty(knex, view));
  if (!keep) {
    for (const view of rollups) await knex.raw(`DROP MATERIALIZED VIEW ${view}`);
    await knex.raw('DROP TABLE metrics');
    return;
  }
  await knex.raw('ALTER TABLE metrics RENAME TO metrics_legacy');
  await knex.raw('ALTER INDEX metrics_dedupe_idx RENAME TO metrics_legacy_dedupe_idx');
  for (const view of rollups) {
    await knex.raw(`ALTER MATERIALIZED VIEW ${view} RENAME TO ${view}_legacy`);
    await knex.raw(`ALTER INDEX IF EXISTS ${view}_series_idx RENAME TO ${view}_legacy_series_idx`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await setAsideSampleRows(knex);
  await knex.raw(`
    CREATE FUNCTION metric_series_key(names text[], instances text[]) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN md5(names::text || ' ' || instances::text);

    CREATE TABLE metric_series_sets (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      names text[] NOT NULL,
      instances text[] NOT NULL,
      CHECK (cardinality(names) = cardinality(instances))
    );
    -- the key is a hash: a set of many long names would not fit a b-tree entry
    CREATE UNIQUE INDEX metric_series_sets_key_idx ON metric_series_sets (metric_series_key(names, instances));
    -- readers find the sets holding a series (and its position in each)
    CREATE INDEX metric_series_sets_names_idx ON metric_series_sets USING gin (names);

    -- The id of a set, created when new. Looks first: the upsert writes a row version even on a hit.
    CREATE FUNCTION metric_series_set_id(p_names text[], p_instances text[]) RETURNS integer
      LANGUAGE plpgsql AS $$
    DECLARE
      found integer;
    BEGIN
      SELECT id INTO found FROM metric_series_sets
       WHERE metric_series_key(names, instances) = metric_series_key(p_names, p_instances);
      IF found IS NULL THEN
        -- DO UPDATE, not DO NOTHING: it returns the id a concurrent transaction just committed
        INSERT INTO metric_series_sets AS s (names, instances) VALUES (p_names, p_instances)
          ON CONFLICT (metric_series_key(names, instances)) DO UPDATE SET names = s.names
          RETURNING id INTO found;
      END IF;
      RETURN found;
    END $$;

    -- No foreign keys: on TimescaleDB this is a hypertable; a system's rows are removed by the
    -- service that deletes it, and sets are never deleted.
    CREATE TABLE metrics (
      time timestamptz NOT NULL,
      system_id integer NOT NULL,
      set_id integer NOT NULL,
      vals real[] NOT NULL
    );
    -- Dedupe key (a report is stored once); also serves every read (system and time range).
    CREATE UNIQUE INDEX metrics_dedupe_idx ON metrics (system_id, time);

    -- Element-wise aggregates over the rows of one (system, set): every row has the same length.
    CREATE FUNCTION metrics_vals_least(a real[], b real[]) RETURNS real[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN ARRAY(SELECT least(x, y) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, k) ORDER BY k);
    CREATE FUNCTION metrics_vals_greatest(a real[], b real[]) RETURNS real[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN ARRAY(SELECT greatest(x, y) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, k) ORDER BY k);
    -- the state of an average: {count, sum of element 1, sum of element 2, …}
    CREATE FUNCTION metrics_vals_sum_step(s float8[], v real[]) RETURNS float8[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE
        WHEN v IS NULL THEN s
        WHEN s IS NULL THEN ARRAY[1::float8] || v::float8[]
        ELSE ARRAY[s[1] + 1] || ARRAY(SELECT x + y FROM unnest(s[2:], v) WITH ORDINALITY AS u(x, y, k) ORDER BY k)
      END;
    CREATE FUNCTION metrics_vals_sum_combine(a float8[], b float8[]) RETURNS float8[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN ARRAY(SELECT x + y FROM unnest(a, b) WITH ORDINALITY AS u(x, y, k) ORDER BY k);
    CREATE FUNCTION metrics_vals_avg_final(s float8[]) RETURNS real[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN ARRAY(SELECT (x / s[1])::real FROM unnest(s[2:]) WITH ORDINALITY AS u(x, k) ORDER BY k);

    CREATE AGGREGATE metrics_min(real[]) (
      sfunc = metrics_vals_least, stype = real[], combinefunc = metrics_vals_least, parallel = safe);
    CREATE AGGREGATE metrics_max(real[]) (
      sfunc = metrics_vals_greatest, stype = real[], combinefunc = metrics_vals_greatest, parallel = safe);
    CREATE AGGREGATE metrics_avg(real[]) (
      sfunc = metrics_vals_sum_step, stype = float8[], finalfunc = metrics_vals_avg_final,
      combinefunc = metrics_vals_sum_combine, parallel = safe);

    CREATE VIEW metric_samples AS
      SELECT m.time, m.system_id, u.name, u.instance, u.value::float8 AS value
        FROM metrics m
        JOIN metric_series_sets s ON s.id = m.set_id,
             unnest(s.names, s.instances, m.vals) AS u(name, instance, value);

    CREATE FUNCTION metric_samples_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      cur record;
      pos bigint;
    BEGIN
      IF NEW.system_id IS NULL OR NEW.name IS NULL OR NEW.time IS NULL OR NEW.value IS NULL THEN
        RAISE not_null_violation USING MESSAGE = 'metric_samples needs system_id, name, time and value';
      END IF;
      NEW.instance := coalesce(NEW.instance, '');
      SELECT m.vals, s.names, s.instances INTO cur
        FROM metrics m JOIN metric_series_sets s ON s.id = m.set_id
       WHERE m.system_id = NEW.system_id AND m.time = NEW.time;
      IF NOT FOUND THEN
        INSERT INTO metrics (time, system_id, set_id, vals)
        VALUES (NEW.time, NEW.system_id, metric_series_set_id(ARRAY[NEW.name], ARRAY[NEW.instance]),
                ARRAY[NEW.value::real]);
        RETURN NEW;
      END IF;
      SELECT u.k INTO pos FROM unnest(cur.names, cur.instances) WITH ORDINALITY AS u(name, instance, k)
       WHERE u.name = NEW.name AND u.instance = NEW.instance;
      IF pos IS NOT NULL THEN
        UPDATE metrics SET vals[pos] = NEW.value::real WHERE system_id = NEW.system_id AND time = NEW.time;
      ELSE
        UPDATE metrics
           SET set_id = metric_series_set_id(cur.names || NEW.name, cur.instances || NEW.instance),
               vals = cur.vals || NEW.value::real
         WHERE system_id = NEW.system_id AND time = NEW.time;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER metric_samples_insert INSTEAD OF INSERT ON metric_samples
      FOR EACH ROW EXECUTE FUNCTION metric_samples_insert();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP VIEW metric_samples;
    DROP FUNCTION metric_samples_insert();
    DROP AGGREGATE metrics_avg(real[]);
    DROP AGGREGATE metrics_min(real[]);
    DROP AGGREGATE metrics_max(real[]);
    DROP FUNCTION metrics_vals_avg_final(float8[]), metrics_vals_sum_combine(float8[], float8[]),
      metrics_vals_sum_step(float8[], real[]), metrics_vals_greatest(real[], real[]),
      metrics_vals_least(real[], real[]);
    DROP TABLE metrics;
    DROP FUNCTION metric_series_set_id(text[], text[]);
    DROP TABLE metric_series_sets;
    DROP FUNCTION metric_series_key(text[], text[]);
  `);
  if (await exists(knex, 'metrics_legacy')) {
    await knex.raw('ALTER TABLE metrics_legacy RENAME TO metrics');
    await knex.raw('ALTER INDEX metrics_legacy_dedupe_idx RENAME TO metrics_dedupe_idx');
    for (const view of LEGACY_ROLLUPS) {
      if (!(await exists(knex, `${view}_legacy`))) continue;
      await knex.raw(`ALTER MATERIALIZED VIEW ${view}_legacy RENAME TO ${view}`);
      await knex.raw(`ALTER INDEX IF EXISTS ${view}_legacy_series_idx RENAME TO ${view}_series_idx`);
    }
  } else {
    await knex.raw(`
      CREATE TABLE metrics (
        time timestamptz NOT NULL,
        system_id integer NOT NULL,
        name text NOT NULL,
        instance text NOT NULL DEFAULT '',
        value double precision NOT NULL
      );
      CREATE UNIQUE INDEX metrics_dedupe_idx ON metrics (system_id, name, instance, time);`);
  }
}
