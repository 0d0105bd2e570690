#!/usr/bin/env bash
# The test suite: every file on SQLite, then again on PostgreSQL every file whose subject depends
# on the back end (all but ONCE below) when a server is configured (TEST_DATABASE_URL or DATABASE_URL). Redis suites run when TEST_REDIS_URL or
# REDIS_URL is set. What was skipped is said at the end.
#
# Files run several at a time (TEST_CONCURRENCY, default 3, one more than the cores here): the
# work is mostly CPU, and the third file uses the time the other two spend waiting for child
# processes, browsers and timers. Each file has its own databases, ports, Redis key prefixes and
# temporary directories. Files whose assertions measure time on the machine itself (SERIAL
# below) run afterwards, one at a time, as on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

concurrency="${TEST_CONCURRENCY:-3}"

# Latency bounds (reads within 50 ms during a foreign lock) and load runs: not measured beside
# other files.
SERIAL=(test/sqlite-foreign-lock.test.ts test/bench.test.ts)

# Files that mostly wait on real time (the built server's 10 s header timeout and the slow
# clients, a database outage's timeouts and reconnects, a real Retry-After, Redis windows and
# outages): a lane of their own, one at a time beside the busy ones, so that a wait does not hold
# one of the busy files' places. Each uses about a quarter of a core.
WAITING=(
  test/slow-clients.test.ts test/database-outage.test.ts test/client.test.ts
  test/redis-outage.test.ts test/limiter-store.test.ts test/prepared.test.ts
)

# The longest files (10 to 30 s each within a leg, longest first), started before the rest, which
# follow in alphabetical order: a leg then ends on many short files rather than waiting for one
# long one that happened to start late. run-tests.mjs keeps this order (`node --test` would sort).
LONGEST=(
  test/multi-instance.test.ts test/accounts-cli.test.ts test/clock-skew.test.ts
  test/docs-browser.test.ts test/cli.test.ts test/admin-authorization.test.ts test/fuzz.test.ts
  test/cli-operator.test.ts test/dashboard-browser.test.ts test/auth.test.ts
  test/client-cli.test.ts test/webhooks-process.test.ts test/dashboard-users-browser.test.ts
  test/durability.test.ts
)

# Files that run in the first leg only, their subject the same on both back ends:
# - files that open no database (configuration, the dependency list, serializers, the Redis
#   limiter store, the load generators);
# - the browser files: the pages (the dashboard, the /docs reference), what they send and what
#   they show. The API calls under them are the API files' subject, on both back ends; measured
#   with V8 coverage on PostgreSQL, the browser files reached no line, branch or function of src/
#   that the other files did not.
ONCE=(
  test/bench.test.ts test/config.test.ts test/dependencies.test.ts test/limiter-store.test.ts
  test/serialization.test.ts
  test/dashboard-animal-editor-browser.test.ts test/dashboard-animals-browser.test.ts
  test/dashboard-audit-browser.test.ts test/dashboard-browser.test.ts
  test/dashboard-domains-browser.test.ts test/dashboard-locations-categories-browser.test.ts
  test/dashboard-users-browser.test.ts test/dashboard-webhooks-browser.test.ts
  test/docs-browser.test.ts
)

parallel=("${LONGEST[@]}")
for file in test/*.test.ts; do
  case " ${SERIAL[*]} ${WAITING[*]} ${LONGEST[*]} " in *" $file "*) ;; *) parallel+=("$file") ;; esac
done

# Each test file bundled with what it imports into plain JavaScript (scripts/build-tests.ts), run
# by node without a TypeScript loader in every process; stack traces still name the sources.
node --import tsx scripts/build-tests.ts "${parallel[@]}" "${WAITING[@]}" "${SERIAL[@]}"
bundled() { for file in "$@"; do printf 'test-results/build/%s.mjs\n' "$(basename "$file" .ts)"; done; }
# Without the files that run once: what the second leg runs.
second_leg() {
  local once
  once=" $(bundled "${ONCE[@]}" | tr '\n' ' ')"
  for file in "$@"; do case "$once" in *" $file "*) ;; *) echo "$file" ;; esac; done
}
mapfile -t parallel_all < <(bundled "${parallel[@]}")
mapfile -t waiting_all < <(bundled "${WAITING[@]}")
mapfile -t serial_all < <(bundled "${SERIAL[@]}")
mapfile -t parallel_second < <(second_leg "${parallel_all[@]}")
mapfile -t waiting_second < <(second_leg "${waiting_all[@]}")
mapfile -t serial_second < <(second_leg "${serial_all[@]}")

# One Chromium for every browser file (each works in contexts of its own); without it, each
# file launches its own.
browser_pid=''
stop_browser() { if [ -n "$browser_pid" ]; then kill "$browser_pid" 2>/dev/null || true; wait "$browser_pid" 2>/dev/null || true; fi; }
trap stop_browser EXIT
if [ -x /usr/bin/chromium ]; then
  endpoint_file="$(mktemp)"
  node --import tsx test/helpers/browser-server.ts >"$endpoint_file" &
  browser_pid=$!
  for _ in $(seq 1 300); do
    if [ -s "$endpoint_file" ] || ! kill -0 "$browser_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  endpoint="$(head -n 1 "$endpoint_file")"
  rm -f "$endpoint_file"
  if [[ "$endpoint" == ws://* ]]; then
    export TEST_BROWSER_ENDPOINT="$endpoint"
  else
    echo "note: the shared Chromium did not start; browser files launch their own"
    stop_browser
    browser_pid=''
  fi
fi

# Runs files ($2...) $1 at a time, in the order given, with node's spec reporter.
run_files() { node --enable-source-maps test-results/build/run-tests.mjs --concurrency "$@"; }

# A leg ($1: which files, all or second): the parallel group with the waiting lane beside it
# (its report printed after the group's), then the serial group. Every group runs whatever the
# others answer; the leg fails if any did.
leg() {
  local status=0 started=$SECONDS lane lane_report
  local -n parallel_run="parallel_$1" waiting_run="waiting_$1" serial_run="serial_$1"
  lane_report="$(mktemp)"
  run_files 1 "${waiting_run[@]}" >"$lane_report" 2>&1 &
  lane=$!
  run_files "$concurrency" "${parallel_run[@]}" || status=1
  wait "$lane" || status=1
  echo "== $TEST_DIALECT: the waiting lane, run beside the files above =="
  cat "$lane_report"
  rm -f "$lane_report"
  if [ ${#serial_run[@]} -gt 0 ]; then
    run_files 1 "${serial_run[@]}" || status=1
  fi
  echo "== $TEST_DIALECT: $((SECONDS - started)) s =="
  return "$status"
}

failed=0
echo "== suite on SQLite =="
TEST_DIALECT=sqlite leg all || failed=1
# The browser files have run.
stop_browser
browser_pid=''

skipped=()
if [ -n "${TEST_DATABASE_URL:-${DATABASE_URL:-}}" ]; then
  echo "== suite on PostgreSQL (the files whose subject depends on the back end) =="
  TEST_DIALECT=postgres leg second || failed=1
else
  skipped+=("the PostgreSQL leg and PostgreSQL-only tests (set TEST_DATABASE_URL=postgres://...)")
fi
[ -n "${TEST_REDIS_URL:-${REDIS_URL:-}}" ] || skipped+=("the Redis store and multi-instance tests (set TEST_REDIS_URL=redis://...)")

for item in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $item"; done
exit "$failed"
