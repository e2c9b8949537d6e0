#!/usr/bin/env bash
# The home router, for real: a "home" network namespace behind a "router" namespace that
# masquerades (nftables) and runs Debian's miniupnpd (UPnP-IGD and NAT-PMP), and a friend in
# an "internet" namespace. Checks that without the mapping the friend cannot reach the host,
# that with it (UPnP, then NAT-PMP alone) the friend joins through the invite link alone,
# that the mapping is gone after the host leaves (end of input, SIGTERM, SIGHUP), and that a
# host with no router, or behind carrier-grade NAT, is told so in plain words. Measures how
# long the public invite takes. Tears everything down on exit.
#
# usage: scripts/router.sh [--smoke]    (root; BIN=DIR where cowatch is, default .build/debug)
#   --smoke   three timing rounds (one per way of leaving) instead of five
set -euo pipefail
source "$(dirname "$0")/lib/unblock-signals.sh" "$0" "$@"
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
ROUNDS=5
[[ "${1:-}" == "--smoke" ]] && ROUNDS=3  # still each way of leaving once
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "router: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
for tool in nft /usr/sbin/miniupnpd; do
  command -v "$tool" >/dev/null || { echo "router: skipped: needs $tool (nftables, miniupnpd-nftables)" >&2; exit 77; }
done
[[ -x "$BIN/cowatch" ]] || { echo "missing $BIN/cowatch: swift build" >&2; exit 1; }
HOME_NS=cw-rt-home ROUTER=cw-rt-router NET=cw-rt-inet
OUT=$(mktemp -d)
PIDS=()
cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [[ -n "${FAKE:-}" ]] && kill "$FAKE" 2>/dev/null
  for ns in "$HOME_NS" "$ROUTER" "$NET"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM
fail() { echo "router: FAILED: $*" >&2; for f in "$OUT"/*.log; do echo "--- $f"; tail -15 "$f"; done >&2; exit 1; }
now_ms() { date +%s%3N; }
export XDG_CONFIG_HOME="$OUT/config"

for ns in "$HOME_NS" "$ROUTER" "$NET"; do ip netns del "$ns" 2>/dev/null || true; done
for ns in "$HOME_NS" "$ROUTER" "$NET"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
ip link add rt-lan netns "$ROUTER" type veth peer name rt-home netns "$HOME_NS"
ip link add rt-wan netns "$ROUTER" type veth peer name rt-net netns "$NET"
ip -n "$ROUTER" addr add 10.90.0.1/24 dev rt-lan
ip -n "$HOME_NS" addr add 10.90.0.2/24 dev rt-home
for pair in "$ROUTER rt-lan" "$ROUTER rt-wan" "$HOME_NS rt-home" "$NET rt-net"; do
  set -- $pair
  ip -n "$1" link set "$2" up
done
ip -n "$HOME_NS" route add default via 10.90.0.1
ip netns exec "$ROUTER" sysctl -qw net.ipv4.ip_forward=1
# The home network reaches out (masquerading); nothing comes in unless miniupnpd's chains
# forward it.
ip netns exec "$ROUTER" nft -f - <<'NFT'
table inet filter {
  chain miniupnpd {
  }
  chain prerouting_miniupnpd {
  }
  chain postrouting_miniupnpd {
  }
  chain forward {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname "rt-lan" oifname "rt-wan" accept
    jump miniupnpd
  }
  chain prerouting {
    type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd
  }
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd
    oifname "rt-wan" masquerade
  }
}
NFT

# The router's outside address (a public one, or a carrier's 100.64/10) and the friend's.
wan() {  # router-address friend-address
  ip -n "$ROUTER" addr flush dev rt-wan
  ip -n "$NET" addr flush dev rt-net
  ip -n "$ROUTER" addr add "$1/24" dev rt-wan
  ip -n "$NET" addr add "$2/24" dev rt-net
}
MINIUPNPD=""
router_daemon() {  # upnp=yes|no natpmp=yes|no [more config lines…]
  stop_router_daemon
  {
    echo "ext_ifname=rt-wan"; echo "listening_ip=rt-lan"; echo "port=0"
    echo "enable_upnp=$1"; echo "enable_natpmp=$2"; shift 2
    echo "secure_mode=yes"; echo "system_uptime=yes"
    echo "uuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07b"
    echo "upnp_table_name=filter"; echo "upnp_nat_table_name=filter"
    echo "upnp_forward_chain=miniupnpd"; echo "upnp_nat_chain=prerouting_miniupnpd"
    echo "upnp_nat_postrouting_chain=postrouting_miniupnpd"
    for line in "$@"; do echo "$line"; done
    echo "allow 1024-65535 10.90.0.0/24 1024-65535"; echo "deny 0-65535 0.0.0.0/0 0-65535"
  } >"$OUT/miniupnpd.conf"
  ip netns exec "$ROUTER" /usr/sbin/miniupnpd -f "$OUT/miniupnpd.conf" -d -P "$OUT/miniupnpd.pid" \
    >"$OUT/miniupnpd.log" 2>&1 6>&- 7>&- &
  MINIUPNPD=$!
  for _ in $(seq 50); do grep -q "Listening for NAT-PMP\|HTTP listening" "$OUT/miniupnpd.log" && break; sleep 0.1; done
  sleep 0.2
}
stop_router_daemon() {
  [[ -n "$MINIUPNPD" ]] || return 0
  kill "$MINIUPNPD" 2>/dev/null; wait "$MINIUPNPD" 2>/dev/null || true
  MINIUPNPD=""
}
forwarded() { ip netns exec "$ROUTER" nft list chain inet filter prerouting_miniupnpd | grep -q "dport 7700"; }

HOST=""
start_host() {  # [args…]: a headless host at home, its input on fd 7
  # Opened read-write first, which never blocks (a write-only open waits for a reader, for
  # ever if the reader died first); closing fd 7 is the host's end of input.
  rm -f "$OUT/host.in"; mkfifo "$OUT/host.in"
  exec 7<>"$OUT/host.in"
  XDG_STATE_HOME="$OUT/state-home" ip netns exec "$HOME_NS" "$BIN/cowatch" host --headless \
    --name ann --room movie-night "$@" <"$OUT/host.in" >"$OUT/host.log" 2>&1 6>&- 7>&- &
  HOST=$!
}
wait_line() {  # pattern seconds
  local until=$(($(now_ms) + $2 * 1000))
  while (($(now_ms) < until)); do grep -q "$1" "$OUT/host.log" && return 0; sleep 0.02; done
  return 1
}
host_gone() {  # how: input|TERM|HUP
  case "$1" in
    input) exec 7>&- ;;
    *) kill -"$1" "$HOST"; exec 7>&- ;;
  esac
  for _ in $(seq 200); do kill -0 "$HOST" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$HOST" 2>/dev/null && fail "the host did not stop ($1)"
  wait "$HOST" 2>/dev/null || true
}
friend_joins() {  # link
  rm -f "$OUT/friend.in"; mkfifo "$OUT/friend.in"
  exec 6<>"$OUT/friend.in"
  XDG_STATE_HOME="$OUT/state-friend" ip netns exec "$NET" "$BIN/cowatch" join "$1" --name fay \
    --headless <"$OUT/friend.in" >"$OUT/friend.log" 2>&1 6>&- 7>&- &
  local friend=$!
  for _ in $(seq 200); do grep -q '"event":"welcome"' "$OUT/friend.log" && break; sleep 0.05; done
  grep -q '"event":"welcome"' "$OUT/friend.log" || fail "the friend did not get in with $1"
  exec 6>&-
  wait "$friend" 2>/dev/null || true
}
public_link() { grep '"public"' "$OUT/host.log" | head -1 | sed 's/.*"link":"\([^"]*\)".*/\1/'; }

wan 44.1.1.1 44.1.1.2

# 1. No mapping (--no-port-mapping): the friend cannot reach the host.
router_daemon yes yes
start_host --no-port-mapping
wait_line '"event":"welcome"' 10 || fail "the host did not start"
ip netns exec "$NET" timeout 3 bash -c 'exec 3<>/dev/tcp/44.1.1.1/7700' 2>/dev/null &&
  fail "the friend reached the host without a mapping"
forwarded && fail "a mapping exists with --no-port-mapping"
grep -q '"public"' "$OUT/host.log" && fail "a public invite with --no-port-mapping"
host_gone input
echo "router: without the mapping the friend cannot reach the host"

# 2. UPnP-IGD: the public invite, the friend in by the link alone, the mapping gone after.
timings=()
for round in $(seq "$ROUNDS"); do
  start=$(now_ms)
  start_host
  wait_line '"public":"44.1.1.1:7700"' 10 || fail "no public invite (UPnP)"
  timings+=($(($(now_ms) - start)))
  grep -q '"via":"UPnP-IGD"' "$OUT/host.log" || fail "not through UPnP"
  forwarded || fail "no mapping on the router"
  link=$(public_link)
  [[ "$link" == cowatch://movie-night@44.1.1.1:7700,10.90.0.2:7700/fp=* ]] || fail "link: $link"
  if ((round == 1)); then friend_joins "$link"; fi
  how=input
  ((round == 2)) && how=TERM
  ((round == 3)) && how=HUP
  host_gone "$how"
  forwarded && fail "the mapping outlived the host ($how)"
done
echo "router: UPnP-IGD public invite after host start, ms: ${timings[*]}"
echo "router: the friend joined through the invite link alone; the mapping was removed when the host left"
((ROUNDS >= 3)) && echo "router: removed on end of input, SIGTERM and SIGHUP alike"

# 2b. Renewed: asked for 6 s, the mapping is still there 10 s later (renewed at 3 s, 6 s, …).
COWATCH_PORT_MAPPING_LEASE=6 start_host
wait_line '"public":"44.1.1.1:7700"' 10 || fail "no public invite (short lease)"
sleep 10
forwarded || fail "the mapping expired: not renewed"
renewals=$(grep -c "AddPortMapping: ext port 7700 to 10.90.0.2:7700" "$OUT/miniupnpd.log" || true)
((renewals >= 3)) || fail "asked only $renewals times in 10 s with a 6 s lease"
host_gone input
forwarded && fail "the renewed mapping outlived the host"
echo "router: a short lease was renewed ($renewals requests in 10 s) and removed at the end"

# 3. NAT-PMP alone.
router_daemon no yes
start_host
wait_line '"public":"44.1.1.1:7700"' 15 || fail "no public invite (NAT-PMP)"
grep -q '"via":"NAT-PMP"' "$OUT/host.log" || fail "not through NAT-PMP"
forwarded || fail "no NAT-PMP mapping on the router"
friend_joins "$(public_link)"
host_gone TERM
forwarded && fail "the NAT-PMP mapping outlived the host"
echo "router: NAT-PMP alone: the friend joined, the mapping was removed"

# 4. No router answers: said in plain words, the room runs on.
stop_router_daemon
start_host
wait_line '"event":"reach"' 15 || fail "no word about reach without a router"
grep '"event":"reach"' "$OUT/host.log" | grep -q "no router answered" || fail "$(grep reach "$OUT/host.log")"
grep -q '"event":"welcome"' "$OUT/host.log" || fail "the room did not run"
host_gone input
echo "router: with no router the host is told friends outside cannot reach the room"

# 5. Carrier-grade NAT: the router forwards, but its outside address is 100.64/10.
wan 100.64.0.1 100.64.0.2
router_daemon yes yes
start_host
wait_line '"event":"reach"' 15 || fail "no word about carrier-grade NAT"
grep '"event":"reach"' "$OUT/host.log" | grep -q "carrier-grade NAT" || fail "$(grep reach "$OUT/host.log")"
host_gone input
forwarded && fail "the mapping outlived the host (carrier-grade NAT)"
echo "router: behind carrier-grade NAT the host is told so"
stop_router_daemon

# 6. A router that lies (scripts/fake_igd.py on the router's LAN address): its word is
# checked before anything is forwarded, nothing permanent is asked for, and only the
# mapping Cowatch made is removed.
wan 44.1.1.1 44.1.1.2
FAKE=""
fake_router() {  # [fake_igd.py options…]
  stop_fake_router
  : >"$OUT/igd.log"
  ip netns exec "$ROUTER" python3 scripts/fake_igd.py --bind 10.90.0.1 --log "$OUT/igd.log" "$@" \
    >"$OUT/fake-igd.log" 2>&1 6>&- 7>&- &
  FAKE=$!
  for _ in $(seq 50); do grep -q '"ready"' "$OUT/igd.log" && break; sleep 0.1; done
  grep -q '"ready"' "$OUT/igd.log" || fail "the fake router did not start"
}
stop_fake_router() {
  [[ -n "$FAKE" ]] || return 0
  kill "$FAKE" 2>/dev/null; wait "$FAKE" 2>/dev/null || true
  FAKE=""
}
asked() { grep -c "\"action\": \"$1\"" "$OUT/igd.log" || true; }

# 6a. An outside address with shell metacharacters: not taken, nothing forwarded.
fake_router --address '6.6.6.6;id>x'
start_host
wait_line '"event":"reach"' 15 || fail "no word about the router's answer"
grep '"event":"reach"' "$OUT/host.log" | grep -q "not one friends could use" ||
  fail "$(grep reach "$OUT/host.log")"
grep -q '"public"' "$OUT/host.log" && fail "a public link from a router's bad answer"
grep -v '"event":"reach"' "$OUT/host.log" | grep "6.6.6.6" && fail "the bad answer reached a link"
(($(asked AddPortMapping) == 0)) || fail "a port was forwarded for an address that cannot be given"
host_gone input
echo "router: an outside address with shell metacharacters is not taken and nothing is forwarded"

# 6b. A router that takes only permanent mappings (725): none is asked for, the host is told.
fake_router --only-permanent
start_host
wait_line '"event":"reach"' 15 || fail "no word about a router that only takes permanent mappings"
grep '"event":"reach"' "$OUT/host.log" | grep -q "never end" || fail "$(grep reach "$OUT/host.log")"
grep -q '"NewLeaseDuration": "0"' "$OUT/igd.log" && fail "a permanent mapping was asked for"
(($(asked AddPortMapping) >= 1)) || fail "the router was not asked at all"
host_gone input
echo "router: a router that takes only permanent mappings is not given one, and the host is told"

# 6c. The port goes to someone else by the time the host leaves: theirs is not removed; and
# the host's own mapping is.
fake_router --owner 10.90.0.77
start_host
wait_line '"public":"44.1.1.1:7700"' 15 || fail "no public invite from the fake router"
host_gone input
(($(asked GetSpecificPortMappingEntry) >= 1)) || fail "the host did not ask whose the port is"
(($(asked DeletePortMapping) == 0)) || fail "the host removed a mapping that is not its own"
fake_router
start_host
wait_line '"public":"44.1.1.1:7700"' 15 || fail "no public invite from the fake router"
host_gone input
(($(asked DeletePortMapping) == 1)) || fail "the host's own mapping was not removed"
stop_fake_router
echo "router: only the mapping the host made is removed"
echo "router: all checks passed"
