#!/usr/bin/env bash
# Runs the README's test command N times on the built tree and prints, per test that
# failed at least once, how many runs it failed in; then the wall time of each run.
#   scripts/flaky.sh [N]            (default 10)
#   COWATCH_FLAKY_HOG=1 scripts/flaky.sh N    the same beside two busy loops (a CPU hog)
# Exits non-zero if any run failed. Logs stay in the folder it prints.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
logs=$(mktemp -d /tmp/cowatch-flaky.XXXXXX)
test_command=$(sed -n '/<!-- test-command -->/,/<!-- \/test-command -->/p' README.md | grep -v '^<!--' | grep -v '^```' | head -1)
echo "flaky: $runs runs of: $test_command (logs in $logs)"

hog_pids=()
stop_hog() { for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null; done; }
trap stop_hog EXIT
if [[ "${COWATCH_FLAKY_HOG:-}" == 1 ]]; then
  for _ in 1 2; do
    bash -c 'while :; do :; done' &
    hog_pids+=($!)
  done
  echo "flaky: beside a CPU hog (two busy loops)"
fi

failed_runs=0
unnamed=()
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s)
  if eval "$test_command" >"$logs/run-$i.log" 2>&1; then result=passed; else
    result=FAILED
    failed_runs=$((failed_runs + 1))
    grep -q '✘ Test .* failed after' "$logs/run-$i.log" || unnamed+=("$i")
  fi
  echo "flaky: run $i $result in $(($(date +%s) - start)) s"
done

echo
echo "| test | failed |"
echo "|---|---|"
# Swift Testing names a failed test on a line of its own: ✘ Test "name" failed after …
grep -h -o '✘ Test .* failed after' "$logs"/run-*.log 2>/dev/null | grep -v '^✘ Test run with' \
  | sed -e 's/^✘ Test //' -e 's/ failed after$//' \
  | sort | uniq -c | sort -rn \
  | while read -r count name; do echo "| $name | $count of $runs |"; done
# A crash, a hang or a build failure names no test.
for i in "${unnamed[@]}"; do echo "| (run $i failed without naming a test: see run-$i.log) | |"; done
echo
echo "flaky: $((runs - failed_runs)) of $runs runs passed"
[[ $failed_runs -eq 0 ]]
