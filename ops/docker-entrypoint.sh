#!/bin/sh
# Image entrypoint: the start-up sequence (docs/operations.md "Start-up sequence"), then the server (the compiled `npm run start:prod`).
#   1-3. db/migrate: pending migrations in one transaction, default rules once, TimescaleDB (non-fatal)
#   4.   db/seed: ensures the default rules (no users, no sample systems)
#   5.   the server on PORT (3000)
# A failed migration or seed exits non-zero before anything listens. Any arguments run instead of
# the sequence, e.g. `docker compose run --rm app node dist/server/ops/reset-password.js --list`.
set -eu
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

node dist/server/db/migrate.js
node dist/server/db/seed.js
# exec: the server becomes the container's main process and receives SIGTERM itself (graceful stop)
exec node dist/server/backend/src/main.js
