#!/usr/bin/env bash
# The test suite, as `npm test` runs it after the build and the linters: every test file on
# SQLite, then on PostgreSQL each file whose subject depends on the back end when a server is
# configured (TEST_DATABASE_URL or DATABASE_URL), TEST_CONCURRENCY files at a time (default 3).
# scripts/run-tests.ts runs the legs and says how.
#
#   bash scripts/test.sh                      # the suite
#   bash scripts/test.sh --record-durations   # the same; then test/durations.json from this run
#
# No list of files is kept here. Where a file runs (both legs, only SQLite's, or either; with the busy
# files, in the lane of those that mostly wait on real time, or alone afterwards) is what the file
# declares about itself (`export const testPlan: TestPlan = { … }`, scripts/test-plan.ts); the
# order, longest first, comes from test/durations.json. A new file runs with the defaults (both
# legs, busy), first until its duration is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each test file bundled with what it imports into plain JavaScript (scripts/build-tests.ts), run
# by node without a TypeScript loader in every process; stack traces still name the sources.
node --import tsx scripts/build-tests.ts
exec node --enable-source-maps test-results/build/run-tests.mjs "$@"
