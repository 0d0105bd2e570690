#!/usr/bin/env bash
# The test suite: every file on SQLite, then every file again on PostgreSQL when a server is
# configured (TEST_DATABASE_URL or DATABASE_URL). Redis suites run when TEST_REDIS_URL or
# REDIS_URL is set. What was skipped is said at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

run() { node --import tsx --test --test-reporter=spec "$@" test/*.test.ts; }

echo "== suite on SQLite =="
TEST_DIALECT=sqlite run

skipped=()
if [ -n "${TEST_DATABASE_URL:-${DATABASE_URL:-}}" ]; then
  echo "== suite on PostgreSQL =="
  TEST_DIALECT=postgres run
else
  skipped+=("the PostgreSQL leg and PostgreSQL-only tests (set TEST_DATABASE_URL=postgres://...)")
fi
[ -n "${TEST_REDIS_URL:-${REDIS_URL:-}}" ] || skipped+=("the Redis store and multi-instance tests (set TEST_REDIS_URL=redis://...)")

for item in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $item"; done
