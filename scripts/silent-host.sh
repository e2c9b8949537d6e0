#!/usr/bin/env bash
# The host's machine goes silent (SIGSTOP: a lid closed, a machine asleep) while three
# people watch; measures how long the others take to be back together on a successor's
# relay, and how long the host takes, once resumed (SIGCONT), to be sent there too.
#   scripts/silent-host.sh [RUNS]     (after swift build; BIN=DIR to use another build)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
RUNS=${1:-3}
now() { date +%s%N; }
wait_for() { # FILE PATTERN SECONDS
  local deadline=$(( $(date +%s) + $3 ))
  until grep -q -- "$2" "$1" 2>/dev/null; do
    (( $(date +%s) < deadline )) || { echo "timed out waiting for $2 in $1" >&2; return 1; }
    sleep 0.01
  done
}
for run in $(seq 1 "$RUNS"); do
  dir=$(mktemp -d)
  export XDG_STATE_HOME="$dir/state"
  mkfifo "$dir/ann.in" "$dir/bob.in" "$dir/carl.in"
  (exec 3<>"$dir/ann.in"; exec "$BIN/cowatch" host --bind 127.0.0.1 --port 0 --name ann --headless <&3 >"$dir/ann.out" 2>"$dir/ann.err") &
  ann=$!
  wait_for "$dir/ann.out" '"event":"invite"' 20
  invite=$(grep '"event":"invite"' "$dir/ann.out")
  port=$(sed -E 's/.*127\.0\.0\.1:([0-9]+).*/\1/' <<<"$invite")
  fp=$(sed -E 's/.*--fingerprint (SHA256:[A-Za-z0-9+\/]+).*/\1/' <<<"$invite")
  for who in bob carl; do
    (exec 3<>"$dir/$who.in"; exec "$BIN/cowatch" join "127.0.0.1:$port" --name "$who" --headless --fingerprint "$fp" <&3 >"$dir/$who.out" 2>"$dir/$who.err") &
    wait_for "$dir/$who.out" '"event":"welcome"' 20
  done
  wait_for "$dir/ann.out" '"successors":\["bob","carl"\]' 20
  echo "start harbour/s1e1" >"$dir/ann.in"
  sleep 1
  t0=$(now)
  kill -STOP "$ann"
  wait_for "$dir/carl.out" '"resumed":true' 30
  t1=$(now)
  wait_for "$dir/bob.out" '"resumed":true' 30
  t2=$(now)
  kill -CONT "$ann"
  wait_for "$dir/ann.out" '"event":"moved"' 30
  t3=$(now)
  awk -v r="$run" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
    printf "run %d: others back after %.2f s (carl) / %.2f s (bob); host sent on %.2f s after SIGCONT\n",
      r, (b - a) / 1e9, (c - a) / 1e9, (d - c) / 1e9 }'
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  kill "$ann" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
done
