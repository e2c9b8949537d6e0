#!/usr/bin/env bash
# Several hosts on one machine: three network namespaces joined by veth pairs, the relay
# in one, participants in the others, a user-space delay proxy in between (this kernel has
# no netem). Measures propagation, sync error and clock-offset error (the truth is known:
# every namespace shares the machine's CLOCK_MONOTONIC, and `cowatch serve` uses it as the
# group clock). Tears everything down on exit, even on failure.
#
# The relay speaks TLS, as `cowatch serve` does by default, and every participant pins its
# certificate's fingerprint, as a host's invite makes them do. --no-tls runs the same over
# plain TCP (relay and participants), to see what TLS costs on these paths.
#
# usage: scripts/multihost.sh [--smoke] [--no-tls]     (root; after swift build -c release)
#   --smoke   a tiny run that checks the whole path works; prints, writes no document
#   BIN=DIR   where cowatch and cowatch-bench are (default .build/release)
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
SMOKE=""; TLS=1
for arg in "$@"; do
  case "$arg" in
    --smoke) SMOKE=--smoke ;;
    --no-tls) TLS=0 ;;
    *) echo "usage: scripts/multihost.sh [--smoke] [--no-tls]" >&2; exit 2 ;;
  esac
done
ROUNDS=10; SECONDS_SYNC=30; PARTICIPANTS=5; WARMUP=30
if [[ "$SMOKE" == "--smoke" ]]; then ROUNDS=2; SECONDS_SYNC=6; PARTICIPANTS=3; WARMUP=3; fi
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "multihost: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
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

if [[ $TLS -eq 1 ]]; then
  # Its certificate is made once, self-signed, in this run's own state directory.
  ip netns exec "$NS_R" env XDG_STATE_HOME="$OUT/state" "$BIN/cowatch" serve --host 127.0.0.1 \
    --port 7700 --store memory --log-level notice >"$OUT/relay.log" 2>&1 &
  PIDS+=($!)
else
  ip netns exec "$NS_R" "$BIN/cowatch" serve --host 127.0.0.1 --port 7700 --store memory \
    --no-tls --log-level notice >"$OUT/relay.log" 2>&1 &
  PIDS+=($!)
fi
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
# The relay says where it listens (and, with TLS, its certificate) once it does.
for _ in $(seq 100); do grep -q "listening on" "$OUT/relay.log" 2>/dev/null && break; sleep 0.1; done
grep -q "listening on" "$OUT/relay.log" || { cat "$OUT/relay.log" >&2; echo "the relay did not start" >&2; exit 1; }
PIN=()
if [[ $TLS -eq 1 ]]; then
  FINGERPRINT=$(grep -o 'SHA256:[^ ]*' "$OUT/relay.log" | head -1)
  [[ -n "$FINGERPRINT" ]] || { cat "$OUT/relay.log" >&2; echo "the relay printed no certificate fingerprint" >&2; exit 1; }
  PIN=(--fingerprint "$FINGERPRINT")
fi
# Each proxy says so once it listens (a python start beside a busy CPU took longer than the
# half second this used to sleep, and the first case found nothing at its port).
for n in 1 2 3 4; do
  for _ in $(seq 100); do grep -q "delay proxy" "$OUT/p$n.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "delay proxy" "$OUT/p$n.log" || { cat "$OUT/p$n.log" >&2; echo "delay proxy $n did not start" >&2; exit 1; }
done
ping -c1 -W1 10.77.1.1 >/dev/null 2>&1 && { echo "the relay namespace is reachable from the host: refusing" >&2; exit 1; }

run_case() { # namespace address label (also the room name)
  ip netns exec "$1" "$BIN/cowatch-bench" remote --relay "$2" --room "$3" --label "$3" "${PIN[@]}" \
    --participants "$PARTICIPANTS" --rounds "$ROUNDS" --seconds "$SECONDS_SYNC" --warmup "$WARMUP" >"$OUT/$3.md" 2>"$OUT/$3.err"
}
MODE=$([[ $TLS -eq 1 ]] && echo "TLS, participants pinning the relay's certificate" || echo "plain TCP")
echo "running 4 cases (${PARTICIPANTS} participants each, $MODE) ..." >&2
run_case "$NS_B" 10.77.1.1:7801 "sym-40ms-jitter10" & C1=$!
run_case "$NS_C" 10.77.2.1:7802 "asym-up20-down60" & C2=$!
run_case "$NS_C" 10.77.2.1:7803 "asym-up60-down20" & C3=$!
run_case "$NS_B" 10.77.1.1:7804 "veth-no-delay" & C4=$!
PIDS+=($C1 $C2 $C3 $C4)
status=0
for c in $C1 $C2 $C3 $C4; do wait "$c" || status=1; done
if [[ $status -ne 0 ]]; then cat "$OUT"/*.err >&2; echo "a case failed" >&2; exit 1; fi

TABLE=$( (head -2 "$OUT/sym-40ms-jitter10.md"; for f in "$OUT"/*.md; do tail -n +3 "$f" | grep '^|' ; done) )
LARGEST=$(grep -h "largest divergence" "$OUT"/*.md || true)
echo "$TABLE"
echo
echo "$LARGEST"

[[ "$SMOKE" == "--smoke" ]] && exit 0
DOC=docs/BENCHMARKS.md
MACHINE="nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); kernel $(uname -r); $(date -u +%FT%TZ)"
python3 - "$DOC" "$TABLE" "$MACHINE" "$PARTICIPANTS" "$ROUNDS" "$SECONDS_SYNC" "$TLS" "$LARGEST" <<'PY'
import sys
doc, table, machine, n, rounds, secs, tls, largest = sys.argv[1:9]
largest = "\n".join(f"- {line}" for line in largest.splitlines() if line.strip())
if tls == "1":
    begin, end = "<!-- bench:multihost -->", "<!-- /bench:multihost -->"
    heading = "## 6. Several hosts (network namespaces, delayed links)"
    command = "`scripts/multihost.sh`"
    mode = ("over TLS, as people use Cowatch: the relay's certificate is self-signed, and every "
            "participant pins its fingerprint (`--fingerprint`, as a host's invite does)")
else:
    begin, end = "<!-- bench:multihost-plain -->", "<!-- /bench:multihost-plain -->"
    heading = "### 6b. The same over plain TCP"
    command = "`scripts/multihost.sh --no-tls`"
    mode = "over plain TCP (`--no-tls` on the relay), to compare with §6: what TLS costs there"
block = f"""{begin}
{heading}

Command: {command}  
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
see it; that is what limits clock sync. This run: {mode}.

{table}

Where the largest divergence within a second of a command came, per case:

{largest}

{end}"""
try:
    text = open(doc).read()
except FileNotFoundError:
    text = "# Cowatch benchmarks\n\n"
if begin in text and end in text:
    a = text.index(begin); b = text.index(end) + len(end)
    text = text[:a] + block + text[b:]
elif tls == "0" and "<!-- /bench:multihost -->" in text:
    b = text.index("<!-- /bench:multihost -->") + len("<!-- /bench:multihost -->")
    text = text[:b] + "\n\n" + block + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(doc, "w").write(text)
print(f"wrote {doc}", file=sys.stderr)
PY
