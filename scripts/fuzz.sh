#!/usr/bin/env bash
# Builds the libFuzzer target (Fuzz/RelayFuzzTarget.swift) and runs it.
#   scripts/fuzz.sh [SECONDS]      run for SECONDS (default 60) on Fuzz/corpus, then report
# The target is compiled with the sources of PlaybackCoordination, WireProtocol (with its
# Coding/ folder) and Rooms, and the pure half of LineFraming (the framer, not its NIO
# handler), as one module (their imports of each other removed): no package build, no NIO.
# Findings (crash-*, timeout-*, oom-*) are left in Fuzz/findings/ and make the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sources=$(find Sources/PlaybackCoordination Sources/WireProtocol Sources/Rooms -name '*.swift')
sources+=" Sources/LineFraming/LineFramer.swift Sources/LineFraming/FrameTooLarge.swift"
for f in $sources; do
  name=$(echo "${f#Sources/}" | tr '/+' '__')
  sed -E '/^import (PlaybackCoordination|WireProtocol|Rooms|LineFraming)$/d' "$f" > "$work/$name"
done
cp Fuzz/RelayFuzzTarget.swift "$work/"
swiftc -O -suppress-warnings -sanitize=fuzzer,address -parse-as-library -module-name RelayFuzz \
  "$work"/*.swift -o "$work/relay-fuzz" 2> >(grep -v "Cannot export local symbol" >&2)
mkdir -p Fuzz/findings "$work/corpus"
cp Fuzz/corpus/* "$work/corpus/"
status=0
"$work/relay-fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=Fuzz/findings/ -print_final_stats=1 "$work/corpus" 2>&1 \
  | grep -E "^#[0-9]+.*DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec|ERROR|SUMMARY|crash-|Test unit written" \
  || status=$?
if compgen -G "Fuzz/findings/*" > /dev/null; then
  echo "fuzz: findings in Fuzz/findings/" >&2
  exit 1
fi
echo "fuzz: ${seconds} s, no crash"
