#!/usr/bin/env bash
# Rooms nearby on a real (virtual) LAN: two network namespaces on one veth segment, a host
# advertising in one (beside a real Avahi daemon on the same port 5353, when Avahi is
# installed), `cowatch nearby` and `cowatch join --nearby` in the other. Checks that the room
# is listed, that joining by it works, that a host with --no-advertise is not listed, that
# Avahi still answers for its own names, and that a room that closed is gone; measures how
# long a room takes to appear. Tears everything down on exit.
#
# usage: scripts/nearby.sh [--smoke]    (root; BIN=DIR where cowatch is, default .build/debug)
#   --smoke   one round of each measurement instead of ten
set -euo pipefail
source "$(dirname "$0")/lib/unblock-signals.sh" "$0" "$@"
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
ROUNDS=10
[[ "${1:-}" == "--smoke" ]] && ROUNDS=1
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "nearby: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
[[ -x "$BIN/cowatch" ]] || { echo "missing $BIN/cowatch: swift build" >&2; exit 1; }
NS_A=cw-near-a NS_B=cw-near-b
OUT=$(mktemp -d)
PIDS=()
cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for ns in "$NS_A" "$NS_B"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM
for ns in "$NS_A" "$NS_B"; do ip netns del "$ns" 2>/dev/null || true; done
for ns in "$NS_A" "$NS_B"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
# One LAN segment, and no route for multicast: Cowatch must pick the interface itself.
ip link add cwnear-a netns "$NS_A" type veth peer name cwnear-b netns "$NS_B"
ip -n "$NS_A" addr add 10.89.0.1/24 dev cwnear-a
ip -n "$NS_B" addr add 10.89.0.2/24 dev cwnear-b
ip -n "$NS_A" link set cwnear-a up
ip -n "$NS_B" link set cwnear-b up
export XDG_STATE_HOME="$OUT/state-a" XDG_CONFIG_HOME="$OUT/config"

now_ms() { date +%s%3N; }
fail() { echo "nearby: FAILED: $*" >&2; for f in "$OUT"/*.log; do echo "--- $f"; tail -20 "$f"; done >&2; exit 1; }

AVAHI=0
if command -v avahi-daemon >/dev/null; then
  cat >"$OUT/avahi.conf" <<CONF
[server]
host-name=cwavahi
use-ipv4=yes
use-ipv6=no
enable-dbus=no
allow-interfaces=cwnear-a
[publish]
publish-workstation=no
CONF
  # Its pid file on a private /run/avahi-daemon (ip netns exec gives a mount namespace of
  # its own): never mistaken for a system daemon's, or an earlier run's.
  mkdir -p /run/avahi-daemon
  ip netns exec "$NS_A" sh -c "mount -t tmpfs cowatch-avahi /run/avahi-daemon && exec avahi-daemon \
    --file='$OUT/avahi.conf' --no-drop-root --no-chroot --no-rlimits" >"$OUT/avahi.log" 2>&1 &
  PIDS+=($!)
  AVAHI=1
  for _ in $(seq 50); do grep -q "Server startup complete" "$OUT/avahi.log" && break; sleep 0.1; done
  grep -q "Server startup complete" "$OUT/avahi.log" || fail "Avahi did not start"
  echo "nearby: Avahi runs beside Cowatch on port 5353 in the host's namespace"
fi

# Starts a headless host in namespace A, its input a fifo this script holds open on fd
# `fd` (closing it is the host's end of input). Every process started in the background
# gets fds 6–9 closed: one holding another's fifo would keep that one from ever ending.
start_host() {  # name room port fd [extra args…]
  local name=$1 room=$2 port=$3 fd=$4; shift 4
  mkfifo "$OUT/$name.in"
  # Read-write: never blocks (a write-only open waits for a reader, for ever if it died).
  eval "exec $fd<>\"$OUT/$name.in\""
  ip netns exec "$NS_A" "$BIN/cowatch" host --headless --name "$name" --room "$room" \
    --port "$port" "$@" <"$OUT/$name.in" >"$OUT/$name.log" 2>&1 6>&- 7>&- 8>&- 9>&- &
  PIDS+=($!)
}

# 1. A browser already looking when the host starts: how long until the room is listed.
listed=()
for round in $(seq "$ROUNDS"); do
  rm -f "$OUT/watch.json"
  ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 15 >"$OUT/watch.json" 2>"$OUT/watch.log" 6>&- 7>&- 8>&- 9>&- &
  watcher=$!
  sleep 0.5
  start=$(now_ms)
  start_host ann movie-night 7700 7
  while [[ ! -s "$OUT/watch.json" ]] && (($(now_ms) - start < 10000)); do sleep 0.01; done
  [[ -s "$OUT/watch.json" ]] || fail "the room was not listed within 10 s"
  listed+=($(($(now_ms) - start)))
  grep -q '"room":"movie-night"' "$OUT/watch.json" || fail "listed something else: $(cat "$OUT/watch.json")"
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null || true
  if ((round < ROUNDS)); then
    exec 7>&-  # end of input: the host leaves, its room closes
    for _ in $(seq 100); do ip netns exec "$NS_A" ss -tln | grep -q ':7700 ' || break; sleep 0.05; done
    ip netns exec "$NS_A" ss -tln | grep -q ':7700 ' && fail "the host did not leave (round $round)"
    rm -f "$OUT/ann.in"
  fi
done
echo "nearby: listed after the host started (process start included), ms: ${listed[*]}"

# 2. The host advertising already: how long `cowatch nearby` takes to show it.
answered=()
for _ in $(seq "$ROUNDS"); do
  rm -f "$OUT/once.json"
  start=$(now_ms)
  ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 5 >"$OUT/once.json" 2>&1 6>&- 7>&- 8>&- 9>&- &
  looker=$!
  while [[ ! -s "$OUT/once.json" ]] && (($(now_ms) - start < 5000)); do sleep 0.01; done
  [[ -s "$OUT/once.json" ]] || fail "nearby did not show the room within 5 s"
  answered+=($(($(now_ms) - start)))
  kill "$looker" 2>/dev/null; wait "$looker" 2>/dev/null || true
  # A room's records are sent in answer at most four times a second: the next round must
  # not ask within a quarter of a second of this one's answer, which it did not hear.
  sleep 0.3
done
echo "nearby: shown after cowatch nearby started (process start included), ms: ${answered[*]}"

# 3. The listing says what it should, and a host with --no-advertise is not in it.
start_host quiet secret-room 7701 8 --no-advertise
for _ in $(seq 100); do grep -q '"event":"welcome"' "$OUT/quiet.log" && break; sleep 0.05; done
ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 2 >"$OUT/list.json" 2>"$OUT/list.log"
grep -q '"room":"movie-night","host":"ann"' "$OUT/list.json" || fail "listing: $(cat "$OUT/list.json")"
grep -q '"addresses":\["10.89.0.1:7700"\]' "$OUT/list.json" || fail "addresses: $(cat "$OUT/list.json")"
grep -q 'secret-room' "$OUT/list.json" && fail "a host with --no-advertise was listed"
# A relay not trusted here yet: no link pinned to what the advertisement claims (joining it
# would skip the question join --nearby asks); its fingerprint spelled as links spell it.
grep -q '"verified":false' "$OUT/list.json" || fail "an unknown relay listed as verified: $(cat "$OUT/list.json")"
grep -q '"link":null' "$OUT/list.json" || fail "an unverified room's link was printed: $(cat "$OUT/list.json")"
grep -q '"fingerprint":"SHA256:[A-Za-z0-9_-]*"' "$OUT/list.json" || fail "fingerprint spelling: $(cat "$OUT/list.json")"

# 3c. What a stranger on the network can send (scripts/mdns_fake.py), from an address of
# its own on this link (10.89.0.3) and from one on no subnet of B's (10.200.0.9, routed):
# 300 complete fake rooms, the real room's records rewritten to tls=0 and its own address,
# the real room's goodbye, and a room sent from off the link. None of it may take the real
# room away, rewrite it or crowd it out; the off-link room is not listed.
ip -n "$NS_A" addr add 10.89.0.3/24 dev cwnear-a
ip -n "$NS_A" addr add 10.200.0.9/32 dev cwnear-a
ip netns exec "$NS_B" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.cwnear-b.rp_filter=0
machine=$(grep '"room":"movie-night"' "$OUT/list.json" | head -1 | sed -E 's/.*"machine":"([^"]*)".*/\1/')
ip netns exec "$NS_A" python3 scripts/mdns_fake.py flood 10.89.0.3 8 300 >/dev/null 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
ip netns exec "$NS_A" python3 scripts/mdns_fake.py forge 10.89.0.3 8 movie-night "$machine" 7700 >/dev/null 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
ip netns exec "$NS_A" python3 scripts/mdns_fake.py goodbye 10.89.0.3 8 movie-night "$machine" 7700 >/dev/null 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
ip netns exec "$NS_A" python3 scripts/mdns_fake.py offlink 10.200.0.9 8 10.89.0.2 faraway-room >/dev/null 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
sleep 1
rm -f "$OUT/attacked.json"
start=$(now_ms)
ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 4 >"$OUT/attacked.json" 2>"$OUT/attacked.log" 6>&- 7>&- 8>&- 9>&- &
looker=$!
# The real room, with its fingerprint (a stranger's tls=0 copy heard first is printed, then
# gives way to it: the newest line for a room is what holds).
real_listed() { grep '"room":"movie-night"' "$OUT/attacked.json" 2>/dev/null | grep -vq '"fingerprint":null'; }
while ! real_listed && (($(now_ms) - start < 4000)); do sleep 0.01; done
real_listed || fail "the real room was crowded out or rewritten: $(head -c 600 "$OUT/attacked.json")"
beside_flood=$(($(now_ms) - start))
wait "$looker" 2>/dev/null || true
real=$(grep '"room":"movie-night"' "$OUT/attacked.json" | tail -1)
grep -q '"fingerprint":null' <<<"$real" && fail "the real room was rewritten to plain TCP: $real"
grep -q '10.89.0.3' <<<"$real" && fail "the real room was rewritten to the stranger's address: $real"
grep -q '"addresses":\["10.89.0.1:7700"\]' <<<"$real" || fail "the real room's addresses: $real"
fakes=$(grep -c '"room":"fake-' "$OUT/attacked.json" || true)
((fakes <= 32)) || fail "$fakes fake rooms from one machine were listed (at most 32)"
grep -q 'faraway-room' "$OUT/attacked.json" && fail "a room sent from off the link was listed"
echo "nearby: beside 300 fake rooms, a forged copy, a forged goodbye and an off-link answer, the real room was listed after ${beside_flood} ms ($fakes fakes shown)"
echo "nearby: listed with its host and address; the --no-advertise host is not"

# 3b. A relay run with serve --advertise-nearby: its rooms are listed, hosted by nobody.
ip netns exec "$NS_A" "$BIN/cowatch" serve --host 0.0.0.0 --port 7702 --store memory \
  --advertise-nearby >"$OUT/serve.log" 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
for _ in $(seq 100); do grep -q "advertised nearby" "$OUT/serve.log" && break; sleep 0.05; done
mkfifo "$OUT/dan.in"
exec 6<>"$OUT/dan.in"
ip netns exec "$NS_A" "$BIN/cowatch" join 127.0.0.1:7702 --room club --name dan --headless \
  --trust-new-relay <"$OUT/dan.in" >"$OUT/dan.log" 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
for _ in $(seq 100); do grep -q '"event":"welcome"' "$OUT/dan.log" && break; sleep 0.05; done
ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 2 >"$OUT/served.json" 2>&1
grep -q '"room":"club","host":null' "$OUT/served.json" || fail "serve's room: $(cat "$OUT/served.json")"
echo "nearby: a room of serve --advertise-nearby is listed"
exec 6>&-

# 4. Joining by it: refused until trusted, then in.
export XDG_STATE_HOME="$OUT/state-b"
if ip netns exec "$NS_B" "$BIN/cowatch" join --nearby movie-night --headless --name bob \
  </dev/null >"$OUT/refused.log" 2>&1; then fail "joined a relay nobody trusted"; fi
grep -q "not trusted yet" "$OUT/refused.log" || fail "refusal: $(cat "$OUT/refused.log")"
mkfifo "$OUT/bob.in"
exec 9<>"$OUT/bob.in"
ip netns exec "$NS_B" "$BIN/cowatch" join --nearby movie-night --headless --name bob \
  --trust-new-relay <"$OUT/bob.in" >"$OUT/bob.log" 2>&1 6>&- 7>&- 8>&- 9>&- &
PIDS+=($!)
for _ in $(seq 200); do grep -q '"event":"welcome"' "$OUT/bob.log" && break; sleep 0.05; done
grep -q '"event":"welcome"' "$OUT/bob.log" || fail "bob did not get in by --nearby"
for _ in $(seq 100); do grep -q '"name":"bob"' "$OUT/ann.log" && break; sleep 0.05; done
grep -q '"name":"bob"' "$OUT/ann.log" || fail "the host never saw bob"
echo "nearby: join --nearby refused an untrusted relay, then joined with --trust-new-relay"
exec 9>&-

# 4b. A room only a stranger advertises, in plain TCP (tls=0, its own address): join
# --nearby does not go down to it, with --fingerprint or without.
# Announced for as long as both joins may take (each looks up to 5 s; a loaded machine is
# slower): announcements stopped early leave the second join nothing to refuse.
ip netns exec "$NS_A" python3 scripts/mdns_fake.py forge 10.89.0.3 30 plain-trap "$machine" 7700 >/dev/null 2>&1 6>&- 7>&- 8>&- 9>&- &
trap_forger=$!
PIDS+=($trap_forger)
fingerprint=$(grep '"room":"movie-night"' "$OUT/list.json" | head -1 | sed -E 's/.*"fingerprint":"([^"]*)".*/\1/')
for given in "" "--fingerprint $fingerprint"; do
  # shellcheck disable=SC2086
  if ip netns exec "$NS_B" "$BIN/cowatch" join --nearby plain-trap --headless --name bob \
    --trust-new-relay $given </dev/null >"$OUT/trap.log" 2>&1 6>&- 7>&- 8>&- 9>&-; then
    fail "joined a stranger's plain room (${given:-no --fingerprint})"
  fi
  if [[ -z "$given" ]]; then
    grep -q "says it runs without TLS: anyone on this network can advertise that" "$OUT/trap.log" ||
      fail "refusal without --fingerprint: $(cat "$OUT/trap.log")"
  else
    grep -q "says it runs without TLS, but you gave --fingerprint: not joined" "$OUT/trap.log" ||
      fail "refusal with --fingerprint: $(cat "$OUT/trap.log")"
  fi
  grep -q '"event":"welcome"' "$OUT/trap.log" && fail "a welcome from the stranger's room"
done
kill "$trap_forger" 2>/dev/null || true
echo "nearby: a stranger's plain-TCP room is refused in words, with --fingerprint and without"
export XDG_STATE_HOME="$OUT/state-a"

# 5. Avahi still answers for its own name beside Cowatch.
if ((AVAHI)); then
  address=$(ip netns exec "$NS_B" python3 scripts/mdns_query.py cwavahi.local 10.89.0.2) ||
    fail "Avahi no longer answers beside Cowatch"
  [[ "$address" == 10.89.0.1 ]] || fail "Avahi answered $address"
  echo "nearby: Avahi still answers for cwavahi.local ($address)"
fi

# 6. The host leaves: its room is gone from the listing (its goodbye, not a timeout).
exec 7>&- 8>&-
for _ in $(seq 100); do ip netns exec "$NS_A" ss -tln | grep -q ':7700 ' || break; sleep 0.05; done
ip netns exec "$NS_A" ss -tln | grep -q ':7700 ' && fail "the host did not leave at the end of its input"
ip netns exec "$NS_B" "$BIN/cowatch" nearby --json --wait 1.5 >"$OUT/after.json" 2>/dev/null
grep -q movie-night "$OUT/after.json" && fail "still listed after the host left: $(cat "$OUT/after.json")"
echo "nearby: gone from the listing once its host left"
echo "nearby: all checks passed"
