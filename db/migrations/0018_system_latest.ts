/**
 * The newest values of a system in one row of arrays, instead of one row per
 * (system, metric, instance). Every stored report updated ~60 rows of `metric_latest`; it now
 * updates one row per system, which cut the ingest statement by a quarter (docs/decisions.md).
 *
 * - `system_latest`: per system, four arrays of the same length, one entry per series: `names`,
 *   `instances`, `times` (the sample's time, per series: a series the last report left out keeps
 *   its own) and `vals` (the value). `toast_tuple_target` keeps rows of up to ~200 series inline
 *   and uncompressed (compressing 2.5 KB at every report would cost what the change saves);
 *   fillfactor leaves room for HOT updates.
 * - `system_latest_merge(old…, new…)`: what an upsert keeps. Fast path: the same series in the same
 *   order and none older (an agent's every report), the new arrays as they are. Otherwise the
 *   newest sample per series (on a tie the new one), in the new report's order, then the series
 *   only the old row had (a collector that failed once keeps its last value, as before).
 * - `metric_latest` stays, as a view, for every reader (evaluation, rule preview, reboots, tests).
 *   An INSTEAD OF INSERT trigger makes it writable row by row with the old table's meaning, for
 *   tools and tests: the row's series is set to the given time and value, whatever was there.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE system_latest (
      system_id integer PRIMARY KEY REFERENCES systems (id) ON DELETE CASCADE,
      names text[] NOT NULL,
      instances text[] NOT NULL,
      times timestamptz[] NOT NULL,
      vals double precision[] NOT NULL
    ) WITH (fillfactor = 50, toast_tuple_target = 8160);

    INSERT INTO system_latest (system_id, names, instances, times, vals)
    SELECT system_id, array_agg(name ORDER BY name, instance), array_agg(instance ORDER BY name, instance),
           array_agg(time ORDER BY name, instance), array_agg(value ORDER BY name, instance)
      FROM metric_latest GROUP BY system_id;
    DROP TABLE metric_latest;

    CREATE VIEW metric_latest AS
      SELECT l.system_id, u.name, u.instance, u.time, u.value
        FROM system_latest l, unnest(l.names, l.instances, l.times, l.vals) AS u(name, instance, time, value);

    CREATE FUNCTION system_latest_merge(
      o_names text[], o_instances text[], o_times timestamptz[], o_vals double precision[],
      n_names text[], n_instances text[], n_times timestamptz[], n_vals double precision[],
      OUT names text[], OUT instances text[], OUT times timestamptz[], OUT vals double precision[])
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      k integer;
      newer boolean := true;
    BEGIN
      IF o_names = n_names AND o_instances = n_instances THEN
        FOR k IN 1 .. cardinality(n_times) LOOP
          IF n_times[k] < o_times[k] THEN
            newer := false;
            EXIT;
          END IF;
        END LOOP;
        IF newer THEN
          names := n_names; instances := n_instances; times := n_times; vals := n_vals;
          RETURN;
        END IF;
      END IF;
      SELECT array_agg(m.name ORDER BY m.pos), array_agg(m.instance ORDER BY m.pos),
             array_agg(m.time ORDER BY m.pos), array_agg(m.value ORDER BY m.pos)
        INTO names, instances, times, vals
        FROM (SELECT s.name, s.instance, min(s.pos) AS pos,
                     (array_agg(s.time ORDER BY s.time DESC, s.pos))[1] AS time,
                     (array_agg(s.value ORDER BY s.time DESC, s.pos))[1] AS value
                FROM (SELECT a.name, a.instance, a.time, a.value, a.pos
                        FROM unnest(n_names, n_instances, n_times, n_vals) WITH ORDINALITY AS a(name, instance, time, value, pos)
                      UNION ALL
                      SELECT b.name, b.instance, b.time, b.value, b.pos + 1000000
                        FROM unnest(o_names, o_instances, o_times, o_vals) WITH ORDINALITY AS b(name, instance, time, value, pos)
                     ) s
               GROUP BY s.name, s.instance) m;
    END $$;

    CREATE FUNCTION metric_latest_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      pos bigint;
    BEGIN
      IF NEW.system_id IS NULL OR NEW.name IS NULL OR NEW.time IS NULL OR NEW.value IS NULL THEN
        RAISE not_null_violation USING MESSAGE = 'metric_latest needs system_id, name, time and value';
      END IF;
      NEW.instance := coalesce(NEW.instance, '');
      SELECT u.pos INTO pos
        FROM system_latest l, unnest(l.names, l.instances) WITH ORDINALITY AS u(name, instance, pos)
       WHERE l.system_id = NEW.system_id AND u.name = NEW.name AND u.instance = NEW.instance;
      IF pos IS NOT NULL THEN
        UPDATE system_latest SET times[pos] = NEW.time, vals[pos] = NEW.value WHERE system_id = NEW.system_id;
      ELSE
        INSERT INTO system_latest AS l (system_id, names, instances, times, vals)
        VALUES (NEW.system_id, ARRAY[NEW.name], ARRAY[NEW.instance], ARRAY[NEW.time], ARRAY[NEW.value])
        ON CONFLICT (system_id) DO UPDATE SET names = l.names || excluded.names,
          instances = l.instances || excluded.instances, times = l.times || excluded.times,
          vals = l.vals || excluded.vals;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER metric_latest_insert INSTEAD OF INSERT ON metric_latest
      FOR EACH ROW EXECUTE FUNCTION metric_latest_insert();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE metric_latest_table (
      system_id integer NOT NULL REFERENCES systems (id) ON DELETE CASCADE,
      name text NOT NULL,
      instance text NOT NULL DEFAULT '',
      time timestamptz NOT NULL,
      value double precision NOT NULL,
      PRIMARY KEY (system_id, name, instance)
    ) WITH (fillfactor = 70);
    INSERT INTO metric_latest_table SELECT system_id, name, instance, time, value FROM metric_latest;
    DROP VIEW metric_latest;
    DROP FUNCTION metric_latest_insert(), system_latest_merge(text[], text[], timestamptz[], double precision[],
      text[], text[], timestamptz[], double precision[]);
    DROP TABLE system_latest;
    ALTER TABLE metric_latest_table RENAME TO metric_latest;
    ALTER TABLE metric_latest RENAME CONSTRAINT metric_latest_table_pkey TO metric_latest_pkey;
    ALTER TABLE metric_latest RENAME CONSTRAINT metric_latest_table_system_id_fkey TO metric_latest_system_id_fkey;
    CREATE INDEX metric_latest_uptime_idx ON metric_latest (system_id) WHERE name = 'uptime.s';
  `);
}
