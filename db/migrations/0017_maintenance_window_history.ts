/**
 * Maintenance windows keep their history: availability reports leave out the
 * windows as they were defined at each moment, so editing or deleting a window today does not change
 * last month's figures or an already-mailed report.
 *
 * - `maintenance_window_versions`: one row per definition a window had, in force over
 *   [valid_from, valid_to) (valid_to null: still in force). Only what decides which time is
 *   maintenance is kept (scope and schedule); renaming a window or moving it with its system to
 *   another customer adds no version. No foreign key to the window: its versions outlive it.
 * - A trigger on `maintenance_windows` keeps it whoever writes (the API, the systems repo, demo and
 *   e2e seeds, plain SQL). Its time: an insert's `created_at` (a seed that backdates a window means
 *   it); an update's or delete's is the transaction-local `argus.changed_at` when the app set it
 *   (its clock, which tests move), else the database's `now()` (the app's clock in production).
 * - Windows existing at upgrade get a version from their `created_at` with their present schedule:
 *   earlier edits were not recorded, the present definition is the best the table knows.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE maintenance_window_versions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      window_id integer NOT NULL,
      scope_type text NOT NULL CHECK (scope_type IN ('customer', 'cluster', 'system')),
      scope_id integer NOT NULL,
      kind text NOT NULL CHECK (kind IN ('once', 'weekly')),
      starts_at timestamptz,
      ends_at timestamptz,
      weekdays smallint[],
      start_time text,
      duration_minutes integer,
      valid_from timestamptz NOT NULL,
      valid_to timestamptz,
      CHECK (valid_to IS NULL OR valid_to >= valid_from)
    );
    -- at most one version in force per window
    CREATE UNIQUE INDEX maintenance_window_versions_open_idx ON maintenance_window_versions (window_id)
      WHERE valid_to IS NULL;
    CREATE INDEX maintenance_window_versions_scope_idx ON maintenance_window_versions (scope_type, scope_id);

    INSERT INTO maintenance_window_versions
        (window_id, scope_type, scope_id, kind, starts_at, ends_at, weekdays, start_time, duration_minutes, valid_from)
      SELECT id, scope_type, scope_id, kind, starts_at, ends_at, weekdays, start_time, duration_minutes, created_at
      FROM maintenance_windows;

    CREATE FUNCTION maintenance_window_history() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed_at timestamptz := coalesce(nullif(current_setting('argus.changed_at', true), '')::timestamptz, now());
      closed_at timestamptz;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        changed_at := NEW.created_at;
      ELSIF TG_OP = 'UPDATE' AND (NEW.scope_type, NEW.scope_id, NEW.kind, NEW.starts_at, NEW.ends_at,
          NEW.weekdays, NEW.start_time, NEW.duration_minutes) IS NOT DISTINCT FROM (OLD.scope_type,
          OLD.scope_id, OLD.kind, OLD.starts_at, OLD.ends_at, OLD.weekdays, OLD.start_time,
          OLD.duration_minutes) THEN
        RETURN NULL;
      END IF;
      IF TG_OP <> 'INSERT' THEN
        -- greatest: a clock behind the version's start closes it empty rather than failing the write,
        -- and the next version starts where this one ends
        UPDATE maintenance_window_versions SET valid_to = greatest(changed_at, valid_from)
          WHERE window_id = OLD.id AND valid_to IS NULL
          RETURNING valid_to INTO closed_at;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO maintenance_window_versions
            (window_id, scope_type, scope_id, kind, starts_at, ends_at, weekdays, start_time, duration_minutes, valid_from)
          VALUES (NEW.id, NEW.scope_type, NEW.scope_id, NEW.kind, NEW.starts_at, NEW.ends_at, NEW.weekdays,
            NEW.start_time, NEW.duration_minutes, coalesce(closed_at, changed_at));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER maintenance_windows_history AFTER INSERT OR UPDATE OR DELETE ON maintenance_windows
      FOR EACH ROW EXECUTE FUNCTION maintenance_window_history();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER maintenance_windows_history ON maintenance_windows;
    DROP FUNCTION maintenance_window_history();
    DROP TABLE maintenance_window_versions;
  `);
}
