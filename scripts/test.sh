#!/usr/bin/env bash
# The test command (README.md): builds once, with every warning and every undeclared import
# an error, then runs the tests in two phases from that one build:
#   1. everything in this process (engine, codec, relay, sessions on both transports, the
#      front's grid, the demo on virtual time), in parallel;
#   2. the tests that start real programs (cowatch and cowatch-bench processes, tmux, mpv,
#      Syncplay's client, PostgreSQL), in three groups side by side, each one test at a
#      time. They mostly wait on those programs (about 2 minutes of CPU in 7 of waiting), so
#      three groups fit two cores; within a group nothing starves. The groups run the test
#      bundle itself, as `swift test` does, because SwiftPM lets only one `swift test` use
#      .build at a time.
# Extra arguments go to every test run (e.g. --quiet); --build-only builds and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ "${1:-}" == --build-only ]]; then
  build_only=1
  shift
fi

# Suites that start real programs. A new suite that starts one belongs here.
real_programs='^(CLITests\.|MpvPlayerTests\.(MpvSessionTests|MpvSignalTests|MpvVersionPeerTests|MpvLentItemTests)|SyncplayTests\.SyncplayClientTests|RoomsTests\.(PostgresRoomStoreTests|SharedRoomsTests))'

if [[ "${COWATCH_TEST_SKIP_BUILD:-}" != 1 ]]; then
  swift build --build-tests -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
fi
((build_only)) && exit 0
status=0
echo "test: phase 1 of 2: in-process tests, in parallel"
swift test --skip-build --skip "$real_programs" "$@" || status=1

# Phase 2's groups, balanced by their wall time (seconds measured on this 2-core machine in
# brackets); a test not named in the first two runs in the third.
group_bench='^(CLITests\.BenchSmokeTests/smoke\(|SyncplayTests\.SyncplayClientTests)' # [141]
group_namespaces='^CLITests\.(BenchSmokeTests/(all|multihost)\(|RouterCommandTests)'     # [134]
bundle="$(swift build --show-bin-path)/CowatchPackageTests.xctest"
echo "test: phase 2 of 2: tests that start real programs, in three groups side by side"
pids=()
run_group() { # NAME ARGS…: one group, one test at a time, its lines marked with its name
  local name=$1
  shift
  NO_COLOR=1 "$bundle" --testing-library swift-testing --no-parallel "$@" 2>&1 \
    | sed -u "s/^/[$name] /"
  return "${PIPESTATUS[0]}"
}
run_group bench --filter "$group_bench" "$@" &
pids+=($!)
run_group namespaces --filter "$group_namespaces" "$@" &
pids+=($!)
run_group rest --filter "$real_programs" --skip "$group_bench" --skip "$group_namespaces" "$@" &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
