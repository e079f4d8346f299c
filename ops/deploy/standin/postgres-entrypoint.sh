#!/bin/bash
# Entrypoint of the local database stand-in (ops/deploy/offline-images.sh), with the official
# postgres/timescaledb images' contract: POSTGRES_PASSWORD (required), POSTGRES_USER (default
# postgres), POSTGRES_DB (default the user), PGDATA; an empty PGDATA is initialised once, with
# password authentication over the network and TimescaleDB preloaded and created in POSTGRES_DB.
# Runs the server as user postgres; extra arguments go to postgres (`-c name=value`).
set -euo pipefail

if [ "${1:0:1}" = '-' ]; then
  set -- postgres "$@"
fi

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "database: POSTGRES_PASSWORD is not set; the database is not initialised without a password" >&2
    exit 1
  fi
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  cat >>"$PGDATA/postgresql.conf" <<'CONF'
listen_addresses = '*'
shared_preload_libraries = 'timescaledb'
timescaledb.telemetry_level = off
# room for TimescaleDB's policy jobs, as the official image's timescaledb-tune leaves
timescaledb.max_background_workers = 8
max_worker_processes = 13
CONF
  # a private server on the socket only, to create the database and the extension
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$database" != postgres ]; then
    psql -X -q -v ON_ERROR_STOP=1 -U "$user" -d postgres -c "CREATE DATABASE \"$database\""
  fi
  psql -X -q -v ON_ERROR_STOP=1 -U "$user" -d "$database" -c 'CREATE EXTENSION IF NOT EXISTS timescaledb'
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "database: initialised $PGDATA (user $user, database $database, TimescaleDB preloaded)"
fi

exec "$@"
