#!/usr/bin/env bash
# Emergency reclaim: frees the disk that raw metrics fill, when the database runs out of space.
#
#   ops/emergency-reclaim.sh            print the plan, change nothing
#   ops/emergency-reclaim.sh --apply    stop app and scheduler (compose), then carry the plan out
#   ops/emergency-reclaim.sh --no-compose [--apply]
#                                       use psql with DATABASE_URL directly, stop nothing (tests,
#                                       installations without compose; stop the app yourself)
#
# Environment: KEEP_HOURS (default 48) hours of raw samples to keep; DOWNSAMPLE (default 1): 1 keeps
# older samples as one average per series and hour, 0 discards them. COMPOSE_FILE (default
# docker-compose.prod.yml in the directory that holds this ops/, where its .env is too: run the copy
# in the deployment directory); COMPOSE_PROJECT_NAME (default argus: the script runs
# `docker compose -p argus -f …`, or docker-compose, as README "Production" starts the stack).
# Exit status: 0 done, 1 a failure (the message says what failed and what to do), 2 a usage error.
#
# metrics holds one row per report (docs/decisions.md "One row per report").
# metrics a hypertable: drops the chunks that end before now - KEEP_HOURS (rollups keep their rows),
# and those of metrics_legacy (per-sample rows of before one row per report) when it is a hypertable.
# metrics a plain table: drops every index but metrics_dedupe_idx, then refills the table with the
# newest KEEP_HOURS raw plus, per system and hour, one row of the hourly average of every series it
# reported (or nothing older, DOWNSAMPLE=0). The next app start converts it into a hypertable.
#
# Both record the migration 9000_emergency_reclaim: images built before this script knew it refuse to
# start against the reclaimed database ("The migration directory is corrupt"), current ones accept it.
# The database service keeps running throughout.
set -euo pipefail

MARKER=9000_emergency_reclaim
KEEP_HOURS=${KEEP_HOURS:-48}
DOWNSAMPLE=${DOWNSAMPLE:-1}
apply=0
use_compose=1

# the comment block above, up to the first line of code
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }

for arg in "$@"; do
  case "$arg" in
    --apply) apply=1 ;;
    --no-compose) use_compose=0 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "emergency-reclaim: unknown argument: $arg" >&2
      usage >&2
      exit 2
      ;;
  esac
done

case "$KEEP_HOURS" in
  '' | *[!0-9]*)
    echo "emergency-reclaim: KEEP_HOURS must be a whole number of hours (got '$KEEP_HOURS')" >&2
    exit 2
    ;;
esac
if [ "$KEEP_HOURS" -lt 1 ]; then
  echo "emergency-reclaim: KEEP_HOURS must be at least 1" >&2
  exit 2
fi
case "$DOWNSAMPLE" in
  0 | 1) ;;
  *)
    echo "emergency-reclaim: DOWNSAMPLE must be 1 (keep hourly averages) or 0 (discard) (got '$DOWNSAMPLE')" >&2
    exit 2
    ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
compose_file=${COMPOSE_FILE:-$root/docker-compose.prod.yml}

project=${COMPOSE_PROJECT_NAME:-argus}

die() {
  echo "emergency-reclaim: $*" >&2
  exit 1
}

# Any other command that fails says which step failed and what to do, instead of ending the script
# in silence under set -e. errtrace: inside functions and $(…) too; only the main shell reports (a
# failed $(…) fails its assignment there as well), and always with exit status 1.
step='starting'
remedy='Nothing has been changed: fix the cause and run this again.'
stopped=0 # 1 while stopping the app and the scheduler, 2 once they are
compose_shown=''
on_error() {
  local status=$?
  [ "$BASH_SUBSHELL" = 0 ] || return 0
  echo "emergency-reclaim: failed while $step (exit status $status; the error above says why)." >&2
  echo "$remedy" >&2
  if [ "$stopped" != 0 ]; then
    echo "The app and the scheduler $([ "$stopped" = 1 ] && echo 'may be' || echo are) stopped: run this again once the cause is fixed, or start them with: ${compose_shown}up -d app scheduler" >&2
  fi
  exit 1
}
set -E
trap on_error ERR

compose_cmd=()
if [ "$use_compose" = 1 ]; then
  if docker compose version >/dev/null 2>&1; then
    compose_cmd=(docker compose -p "$project" -f "$compose_file")
  elif command -v docker-compose >/dev/null 2>&1; then
    compose_cmd=(docker-compose -p "$project" -f "$compose_file")
  else
    die "neither 'docker compose' nor 'docker-compose' is installed: install Docker Compose (https://docs.docker.com/compose/install/; Debian: apt-get install docker-compose), then run this again; or run it with --no-compose and DATABASE_URL (and stop the app yourself)."
  fi
  # the command as it can be typed again (printf %q quotes a path with spaces)
  compose_shown=$(printf '%q ' "${compose_cmd[@]}")
fi
compose() { "${compose_cmd[@]}" "$@"; }

# compose mode: the stack must be readable and its database running before anything is asked of it
preflight() {
  local out running dir
  dir=$(dirname "$compose_file")
  [ -f "$compose_file" ] ||
    die "there is no compose file at $compose_file: run ops/emergency-reclaim.sh of the deployment directory (the one with docker-compose.prod.yml and .env), or set COMPOSE_FILE to its compose file."
  if ! out=$(compose config -q 2>&1); then
    # docker-compose 1.x quotes the service's whole environment block before the reason: drop it
    out=${out/" interpolating {"*"} in service "/" in service "}
    if [ -f "$dir/.env" ]; then
      die "${compose_shown}cannot read the stack: $out
Fix what it names: the stack's settings and secrets come from $dir/.env (README \"Production\")."
    fi
    die "${compose_shown}cannot read the stack: $out
There is no .env in $dir: run ops/emergency-reclaim.sh of the deployment directory, next to the .env with the secrets filled in (README \"Production\"), or set COMPOSE_FILE to the compose file there."
  fi
  # (docker-compose 1.x answers an unreachable engine with a Python traceback: its last line says it)
  out=$(compose ps -q database 2>&1) ||
    die "the Docker engine does not answer (${DOCKER_HOST:-the default socket unix:///var/run/docker.sock}): $(tail -n 1 <<<"$out")
Start Docker, or point DOCKER_HOST at it (as a user allowed to use it), then run this again."
  running=$(compose ps --services --filter status=running 2>/dev/null) || running=''
  grep -qx database <<<"$running" ||
    die "the database service of project '$project' is not running: start it with
  ${compose_shown}up -d database
then run this again (if it does not stay up, ${compose_shown}logs database says why; if the stack runs under another project name, set COMPOSE_PROJECT_NAME to it)."
}

# DATABASE_URL's password masked (also as password=… of a key=value string), for messages
redact() {
  local text=$1
  # (up to the last @: a password with a raw / or @ in it stays masked whole)
  if [[ $DATABASE_URL =~ ^[A-Za-z][A-Za-z0-9+.-]*://[^/:@]*:(.+)@ ]]; then
    text=${text//"${BASH_REMATCH[1]}"/***}
  fi
  # shellcheck disable=SC2001 # a character class, beyond ${text//…}
  sed 's/\(password=\)[^[:space:]&]*/\1***/g' <<<"$text"
}

# --no-compose: psql there and the database answering, before the first query
preflight_psql() {
  local out
  if [ -z "${DATABASE_URL:-}" ]; then
    echo "emergency-reclaim: DATABASE_URL is not set (needed with --no-compose): DATABASE_URL=postgres://user:password@host:5432/argus $0 --no-compose" >&2
    exit 2
  fi
  command -v psql >/dev/null 2>&1 ||
    die "psql is not installed: install the PostgreSQL client (Debian: apt-get install postgresql-client), then run this again; or run it without --no-compose, through the stack's database container."
  out=$(psql -X -q -w -At -c 'SELECT 1' "$DATABASE_URL" 2>&1 </dev/null) ||
    die "cannot connect to the database of DATABASE_URL ($(redact "$DATABASE_URL")): $(redact "$out")
Check DATABASE_URL (host, port, user, password, database name) and that the server is up and reachable from here, then run this again."
}

# psql reading SQL from standard input; unaligned, tuples only, stops at the first error
sql() {
  if [ "$use_compose" = 1 ]; then
    # inside the database container, as the user and database the service was initialised with
    # shellcheck disable=SC2016 # expanded by the container's shell, not this one
    compose exec -T database sh -c 'psql -X -q -v ON_ERROR_STOP=1 -At -F "|" -U "$POSTGRES_USER" -d "$POSTGRES_DB"'
  else
    psql -X -q -w -v ON_ERROR_STOP=1 -At -F '|' "$DATABASE_URL"
  fi
}

# --- what is there ----------------------------------------------------------------------------------
if [ "$use_compose" = 1 ]; then
  preflight
else
  preflight_psql
fi
# The cutoff is fixed once, so the plan and the work agree on it to the microsecond.
step='reading the database size and the cutoff'
state=$(sql <<SQL
SELECT to_regclass('metrics') IS NOT NULL,
       EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'),
       to_char((now() - make_interval(hours => $KEEP_HOURS)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       pg_size_pretty(pg_database_size(current_database()))
SQL
)
IFS='|' read -r has_metrics has_timescale cutoff db_size <<<"$state"
if [ "$has_metrics" != t ]; then
  if [ "$use_compose" = 1 ]; then
    die "there is no metrics table in the database of the stack '$project': is this the Argus deployment (COMPOSE_PROJECT_NAME, COMPOSE_FILE)? Nothing has been changed."
  fi
  die "there is no metrics table in the database of DATABASE_URL ($(redact "$DATABASE_URL")): is this the Argus database? Nothing has been changed."
fi

hypertable=f
if [ "$has_timescale" = t ]; then
  step='checking whether metrics is a hypertable'
  hypertable=$(sql <<'SQL'
SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables
                WHERE hypertable_name = 'metrics' AND hypertable_schema = current_schema());
SQL
  )
fi

echo "Database size: $db_size"
echo "Cutoff: $cutoff (KEEP_HOURS=$KEEP_HOURS: every sample at or after it is kept as it is)"
if [ "$hypertable" = t ]; then
  # a compressed chunk keeps its data in a separate compressed table: count both, or the plan
  # shows a few kB for chunks that free megabytes
  step='measuring the chunks older than the cutoff'
  chunks=$(sql <<SQL
WITH old AS (
  SELECT c, pg_total_relation_size(c) + coalesce(s.after_compression_total_bytes, 0) AS bytes
    FROM show_chunks('metrics', older_than => TIMESTAMPTZ '$cutoff') AS c
    LEFT JOIN chunk_compression_stats('metrics') AS s
      ON s.compression_status = 'Compressed' AND format('%I.%I', s.chunk_schema, s.chunk_name)::regclass = c
)
SELECT count(*), pg_size_pretty(coalesce(sum(bytes), 0)), coalesce(sum(bytes), 0) FROM old;
SQL
  )
  IFS='|' read -r chunk_count chunk_size chunk_bytes <<<"$chunks"
  echo "metrics is a hypertable."
  echo "Plan: drop the $chunk_count chunk(s) that end before the cutoff ($chunk_size, $chunk_bytes bytes with their compressed data);"
  echo "      newer chunks and the rollups metrics_5m and metrics_1h are kept."
  step='checking whether metrics_legacy is a hypertable'
  legacy=$(sql <<'SQL'
SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables
                WHERE hypertable_name = 'metrics_legacy' AND hypertable_schema = current_schema());
SQL
  )
  if [ "$legacy" = t ]; then
    echo "      drop the chunks of metrics_legacy (per-sample rows of before one row per report) that end before the cutoff."
  fi
else
  step='listing the redundant indexes of metrics'
  indexes=$(sql <<'SQL'
SELECT string_agg(format('%I.%I', n.nspname, c.relname), ' ' ORDER BY c.relname)
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE i.indrelid = 'metrics'::regclass AND c.relname <> 'metrics_dedupe_idx'
   AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid);
SQL
  )
  step='measuring metrics'
  sizes=$(sql <<SQL
SELECT pg_size_pretty(pg_total_relation_size('metrics')),
       coalesce((SELECT nullif(reltuples, -1)::bigint FROM pg_class WHERE oid = 'metrics'::regclass), 0)
SQL
  )
  IFS='|' read -r table_size row_estimate <<<"$sizes"
  echo "metrics is a plain table ($table_size, about $row_estimate rows)."
  if [ -n "$indexes" ]; then
    echo "Plan: drop the redundant indexes: $indexes"
  else
    echo "Plan: no redundant index to drop (metrics_dedupe_idx is always kept)."
  fi
  echo "      rebuild metrics with the samples at or after the cutoff unchanged"
  if [ "$DOWNSAMPLE" = 1 ]; then
    echo "      and older samples downsampled to one average per system, metric, instance and hour"
    echo "      (one row per system and hour)."
  else
    echo "      and older samples discarded (DOWNSAMPLE=0)."
  fi
fi
echo "      record migration $MARKER (older images then refuse to start against this database)."
if [ "$use_compose" = 1 ]; then
  echo "      stop the app and the scheduler first; the database keeps running."
fi

if [ "$apply" = 0 ]; then
  echo "Nothing changed. Run again with --apply to carry this out."
  exit 0
fi

# --- apply ------------------------------------------------------------------------------------------
remedy='Every step is safe to repeat: fix the cause and run this again with --apply (it plans anew).'
if [ "$use_compose" = 1 ]; then
  echo "Stopping app and scheduler"
  step='stopping the app and the scheduler'
  stopped=1
  compose stop app scheduler
  stopped=2
fi

record_marker="INSERT INTO knex_migrations (name, batch, migration_time)
SELECT '$MARKER', coalesce(max(batch), 0) + 1, now() FROM knex_migrations
 WHERE NOT EXISTS (SELECT 1 FROM knex_migrations WHERE name = '$MARKER');"

if [ "$hypertable" = t ]; then
  # drop_chunks commits chunk by chunk inside; the marker follows in its own statement
  step="dropping the chunks older than the cutoff and recording migration $MARKER"
  sql <<SQL
SELECT 'Dropped ' || count(*) || ' chunk(s)' FROM drop_chunks('metrics', older_than => TIMESTAMPTZ '$cutoff');
$record_marker
SQL
  if [ "$legacy" = t ]; then
    step='dropping the chunks of metrics_legacy older than the cutoff'
    sql <<<"SELECT 'Dropped ' || count(*) || ' chunk(s) of metrics_legacy' FROM drop_chunks('metrics_legacy', older_than => TIMESTAMPTZ '$cutoff');"
  fi
else
  if [ "$DOWNSAMPLE" = 1 ]; then
    # every series a system reported in the hour, averaged, in one row (its series set: sorted)
    older="INSERT INTO metrics_kept (time, system_id, set_id, vals)
SELECT hour, system_id, metric_series_set_id(array_agg(name ORDER BY name, instance), array_agg(instance ORDER BY name, instance)),
       array_agg(value ORDER BY name, instance)::real[]
  FROM (SELECT date_trunc('hour', m.time) AS hour, m.system_id, u.name, u.instance, avg(u.value) AS value
          FROM metrics m JOIN metric_series_sets s ON s.id = m.set_id,
               unnest(s.names, s.instances, m.vals) AS u(name, instance, value)
         WHERE m.time < TIMESTAMPTZ '$cutoff'
         GROUP BY 1, 2, 3, 4) hourly
 GROUP BY hour, system_id;"
  else
    older=''
  fi
  drops=''
  for index in $indexes; do drops="$drops DROP INDEX $index;"; done
  # The indexes go first, in their own transaction: their space is free once it commits, which
  # makes room for the rebuilt table.
  if [ -n "$drops" ]; then
    step="dropping the redundant indexes $indexes"
    sql <<<"BEGIN; $drops COMMIT;"
  fi
  # One transaction: a failure anywhere leaves metrics as it was. What is kept is copied to a
  # temporary table first, so it needs room for that (small) while the old rows still exist; the
  # table itself stays (the view metric_samples depends on it), emptied by TRUNCATE and refilled.
  step="rebuilding metrics and recording migration $MARKER"
  remedy="The rebuild is one transaction: metrics is as it was before it. $remedy
If the database ran out of space: what is kept needs room while the old rows still exist; keep less (KEEP_HOURS below $KEEP_HOURS, or DOWNSAMPLE=0)."
  sql <<SQL
BEGIN;
LOCK TABLE metrics IN ACCESS EXCLUSIVE MODE;
CREATE TEMPORARY TABLE metrics_kept ON COMMIT DROP AS
SELECT time, system_id, set_id, vals FROM metrics WHERE time >= TIMESTAMPTZ '$cutoff';
$older
TRUNCATE metrics;
INSERT INTO metrics (time, system_id, set_id, vals) SELECT time, system_id, set_id, vals FROM metrics_kept;
ANALYZE metrics;
$record_marker
COMMIT;
SQL
fi

step='reading the database size after the reclaim'
final_size=$(sql <<<"SELECT pg_size_pretty(pg_database_size(current_database()));")
echo "Done. Database size: $final_size (was $db_size)."
echo "Recorded migration $MARKER: start the app with a current image only."
if [ "$use_compose" = 1 ]; then
  echo "Start again: ${compose_shown}up -d app scheduler"
fi
