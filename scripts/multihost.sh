#!/usr/bin/env bash
# Several hosts on one machine: three network namespaces joined by veth pairs, the relay
# in one, participants in the others, a user-space delay proxy in between (this kernel has
# no netem). Measures propagation, sync error and clock-offset error (the truth is known:
# every namespace shares the machine's CLOCK_MONOTONIC, and `cowatch serve` uses it as the
# group clock). Tears everything down on exit, even on failure.
#
# usage: scripts/multihost.sh [--smoke]     (root; after swift build -c release)
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
SMOKE=${1:-}
ROUNDS=10; SECONDS_SYNC=30; PARTICIPANTS=5; WARMUP=30
if [[ "$SMOKE" == "--smoke" ]]; then ROUNDS=2; SECONDS_SYNC=4; PARTICIPANTS=3; WARMUP=3; fi
NS_R=cw-relay NS_B=cw-hostb NS_C=cw-hostc
PIDS=()
OUT=$(mktemp -d)

cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 0.2
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  for ns in "$NS_R" "$NS_B" "$NS_C"; do
    # Anything still running in a namespace we made.
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM

for tool in "$BIN/cowatch" "$BIN/cowatch-bench"; do
  [[ -x "$tool" ]] || { echo "missing $tool: swift build -c release" >&2; exit 1; }
done

# Leftovers of an interrupted run.
for ns in "$NS_R" "$NS_B" "$NS_C"; do ip netns del "$ns" 2>/dev/null || true; done

for ns in "$NS_R" "$NS_B" "$NS_C"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
ip link add cwr-b netns "$NS_R" type veth peer name cwb-r netns "$NS_B"
ip link add cwr-c netns "$NS_R" type veth peer name cwc-r netns "$NS_C"
ip -n "$NS_R" addr add 10.77.1.1/24 dev cwr-b
ip -n "$NS_B" addr add 10.77.1.2/24 dev cwb-r
ip -n "$NS_R" addr add 10.77.2.1/24 dev cwr-c
ip -n "$NS_C" addr add 10.77.2.2/24 dev cwc-r
ip -n "$NS_R" link set cwr-b up; ip -n "$NS_B" link set cwb-r up
ip -n "$NS_R" link set cwr-c up; ip -n "$NS_C" link set cwc-r up

ip netns exec "$NS_R" "$BIN/cowatch" serve --host 127.0.0.1 --port 7700 --store memory --log-level warning >"$OUT/relay.log" 2>&1 &
PIDS+=($!)
# Proxies in the relay's namespace, one per case: listen on the veth address, forward to
# the relay on its loopback. UP is participant -> relay.
ip netns exec "$NS_R" python3 scripts/delay_proxy.py 10.77.1.1:7801 127.0.0.1:7700 40 40 10 >"$OUT/p1.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_R" python3 scripts/delay_proxy.py 10.77.2.1:7802 127.0.0.1:7700 20 60 0 >"$OUT/p2.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_R" python3 scripts/delay_proxy.py 10.77.2.1:7803 127.0.0.1:7700 60 20 0 >"$OUT/p3.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_R" python3 scripts/delay_proxy.py 10.77.1.1:7804 127.0.0.1:7700 0 0 0 >"$OUT/p4.log" 2>&1 &
PIDS+=($!)
sleep 1
ping -c1 -W1 10.77.1.1 >/dev/null 2>&1 && { echo "the relay namespace is reachable from the host: refusing" >&2; exit 1; }

run_case() { # namespace address label (also the room name)
  ip netns exec "$1" "$BIN/cowatch-bench" remote --relay "$2" --room "$3" --label "$3" \
    --participants "$PARTICIPANTS" --rounds "$ROUNDS" --seconds "$SECONDS_SYNC" --warmup "$WARMUP" >"$OUT/$3.md" 2>"$OUT/$3.err"
}
echo "running 4 cases (${PARTICIPANTS} participants each) ..." >&2
run_case "$NS_B" 10.77.1.1:7801 "sym-40ms-jitter10" & C1=$!
run_case "$NS_C" 10.77.2.1:7802 "asym-up20-down60" & C2=$!
run_case "$NS_C" 10.77.2.1:7803 "asym-up60-down20" & C3=$!
run_case "$NS_B" 10.77.1.1:7804 "veth-no-delay" & C4=$!
PIDS+=($C1 $C2 $C3 $C4)
status=0
for c in $C1 $C2 $C3 $C4; do wait "$c" || status=1; done
if [[ $status -ne 0 ]]; then cat "$OUT"/*.err >&2; echo "a case failed" >&2; exit 1; fi

TABLE=$( (head -2 "$OUT/sym-40ms-jitter10.md"; for f in "$OUT"/*.md; do tail -n +3 "$f" | grep '^|' ; done) )
echo "$TABLE"

[[ "$SMOKE" == "--smoke" ]] && exit 0
DOC=docs/BENCHMARKS.md
MACHINE="nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); kernel $(uname -r); $(date -u +%FT%TZ)"
python3 - "$DOC" "$TABLE" "$MACHINE" "$PARTICIPANTS" "$ROUNDS" "$SECONDS_SYNC" <<'PY'
import sys
doc, table, machine, n, rounds, secs = sys.argv[1:7]
begin, end = "<!-- bench:multihost -->", "<!-- /bench:multihost -->"
block = f"""{begin}
## 6. Several hosts (network namespaces, delayed links)

Command: `scripts/multihost.sh`  
Machine: {machine}

Three network namespaces joined by veth pairs: `cowatch serve` in `cw-relay`; a delay
proxy (`scripts/delay_proxy.py`, user space: this kernel has no netem) in `cw-relay` per
case, in front of the relay; participants (`cowatch-bench remote`, {n} real
`ParticipantClient`s with simulated players drifting over ±200 ppm, start-up latency
0–300 ms) in `cw-hostb` and `cw-hostc`. The four cases run at the same time, each in its
own room: symmetric 40 ms ± 10 ms each way; asymmetric 20 ms up / 60 ms down and 60 up / 20
down (no jitter); and the bare veth. After 30 s of playing (the clock filter's window fills),
{rounds} rounds of pause, seek and play, then {secs} s of sync sampling, with every
participant's clock estimate read after each round and every 0.5 s while sampling. Clock truth: every namespace shares `CLOCK_MONOTONIC`, which is the relay's
group clock, so the true offset is 0. With an asymmetric path the NTP-style estimate is off
by half the asymmetry ((60 − 20) / 2 = 20 ms) by construction — no four-timestamp method can
see it; that is what limits clock sync.

{table}

{end}"""
try:
    text = open(doc).read()
except FileNotFoundError:
    text = "# Cowatch benchmarks\n\n"
if begin in text and end in text:
    a = text.index(begin); b = text.index(end) + len(end)
    text = text[:a] + block + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(doc, "w").write(text)
print(f"wrote {doc}", file=sys.stderr)
PY
