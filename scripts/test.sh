#!/usr/bin/env bash
# The test command (README.md): builds once, with every warning and every undeclared import
# an error, then runs the tests in two phases from that one build:
#   1. everything in this process (engine, codec, relay, sessions on both transports, the
#      front's grid, the demo on virtual time), in parallel;
#   2. the tests that start real programs (cowatch and cowatch-bench processes, tmux, mpv,
#      Syncplay's client, PostgreSQL), one at a time, so that they do not starve each other
#      or the tests of phase 1 on a 2-core machine.
# Extra arguments go to both `swift test` runs (e.g. --quiet); --build-only builds and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ "${1:-}" == --build-only ]]; then
  build_only=1
  shift
fi

# Suites that start real programs. A new suite that starts one belongs here.
real_programs='^(CLITests\.|MpvPlayerTests\.(MpvSessionTests|MpvSignalTests|MpvVersionPeerTests)|SyncplayTests\.SyncplayClientTests|RoomsTests\.(PostgresRoomStoreTests|SharedRoomsTests))'

if [[ "${COWATCH_TEST_SKIP_BUILD:-}" != 1 ]]; then
  swift build --build-tests -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
fi
((build_only)) && exit 0
status=0
echo "test: phase 1 of 2: in-process tests, in parallel"
swift test --skip-build --skip "$real_programs" "$@" || status=1
echo "test: phase 2 of 2: tests that start real programs, one at a time"
swift test --skip-build --filter "$real_programs" --no-parallel "$@" || status=1
exit $status
