#!/usr/bin/env bash
# The test command (`npm test`): type check and lint, then every suite —
# backend and database tests (node:test through tsx, against the real
# PostgreSQL, Redis and the WASM TimescaleDB), the console's karma tests in
# headless Chromium, the end-to-end tests of the built console in Chromium, and the production stack
# (the image built and run with docker-compose behind nginx). Ends with one line of passed and failed
# counts over all suites; fails when anything failed or a suite ran no test.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
results=tmp/test-results
rm -rf "$results" && mkdir -p "$results"

status=0
total_pass=0
total_fail=0
summary=()

record() { # name passed failed
  summary+=("$1: $2 passed, $3 failed")
  total_pass=$((total_pass + $2))
  total_fail=$((total_fail + $3))
  if [ "$3" != 0 ]; then status=1; fi
  if [ "$2" = 0 ] && [ "$3" = 0 ]; then
    echo "run-all: suite '$1' ran no test" >&2
    status=1
  fi
}

# record_tap NAME EXIT FILE: a node:test run's counts from its TAP summary; cancelled counts as failed,
# and a non-zero exit with no failure counted is one failure (a crash, a timeout)
record_tap() {
  local pass fail cancelled
  pass=$(grep -E '^# pass [0-9]+' "$3" 2>/dev/null | tail -n 1 | awk '{print $3}')
  fail=$(grep -E '^# fail [0-9]+' "$3" 2>/dev/null | tail -n 1 | awk '{print $3}')
  cancelled=$(grep -E '^# cancelled [0-9]+' "$3" 2>/dev/null | tail -n 1 | awk '{print $3}')
  fail=$((${fail:-0} + ${cancelled:-0}))
  [ "$2" != 0 ] && [ "$fail" = 0 ] && fail=1
  record "$1" "${pass:-0}" "$fail"
}

echo "== type check and lint"
if ! npm run --silent typecheck; then status=1; summary+=("typecheck: failed"); fi
if ! npm run --silent lint; then status=1; summary+=("lint: failed"); fi

echo "== backend and database tests"
# ops/stack runs alone at the end: it builds the image and runs the compose stack
mapfile -t files < <(find agent backend/src db ops -name '*.test.ts' -not -path '*/node_modules/*' -not -path 'ops/stack/*' | sort)
# no --test-force-exit: it can end the process before the TAP file is flushed. Tests close their
# handles; the timeout is the guard against one that does not.
timeout --signal=KILL 1800 node_modules/.bin/tsx --test --test-concurrency=3 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$results/backend.tap" \
  "${files[@]}"
record_tap backend $? "$results/backend.tap"

echo "== console tests (karma, headless Chromium)"
export CHROME_BIN=${CHROME_BIN:-/usr/bin/chromium}
KARMA_SUMMARY_FILE="$results/karma.json" node_modules/.bin/ng test --watch=false --progress=false
frontend_exit=$?
if [ -f "$results/karma.json" ]; then
  pass=$(node -p "require('./$results/karma.json').passed")
  fail=$(node -p "require('./$results/karma.json').failed")
else
  pass=0 fail=1
fi
[ "$frontend_exit" != 0 ] && [ "$fail" = 0 ] && fail=1
record frontend "$pass" "$fail"

echo "== end to end (built console, real server, Debian Chromium)"
if node_modules/.bin/ng build --progress=false > "$results/ng-build.log" 2>&1; then
  timeout --signal=KILL 600 node_modules/.bin/tsx --test \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$results/e2e.tap" \
    ops/e2e/*.e2e.ts
  record_tap e2e $? "$results/e2e.tap"
else
  cat "$results/ng-build.log"
  record e2e 0 1
fi

echo "== production stack (image, docker-compose, nginx with TLS, Chromium; the agent installer in Debian; ops/stack)"
export DOCKER_HOST=${DOCKER_HOST:-unix:///run/argus-docker.sock}
stack_started=$(date +%s)
timeout --signal=KILL 2400 node_modules/.bin/tsx --test \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$results/stack.tap" \
  ops/stack/stack.test.ts ops/stack/agent-install.test.ts
record_tap stack $? "$results/stack.tap"
echo "stack: $(($(date +%s) - stack_started)) s (its containers' logs: $results/stack.log)"

echo
for line in "${summary[@]}"; do echo "$line"; done
echo "total: $total_pass passed, $total_fail failed"
exit $status
