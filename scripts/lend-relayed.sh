#!/usr/bin/env bash
# Lending through the room's relay, for real: three machines (network namespaces on one
# bridge): a relay, ann (who lends, with a media folder) and carol (no media, mpv), where
# nftables on the bridge drops everything between carol and ann but both reach the relay.
# Checks that carol's mpv plays ann's copy in step, through the relay (a `cowatch serve`
# with --lend-relay-rate), through a seek; that a `serve` relay without --lend-relay-rate
# does not carry it (carol steps away saying why); and that a `cowatch host` relay (hal's,
# on the relay's machine) carries it for its room by default. Tears everything down on
# exit.
#
# usage: scripts/lend-relayed.sh    (root; BIN=DIR where cowatch is, default .build/debug)
set -euo pipefail
source "$(dirname "$0")/lib/unblock-signals.sh" "$0" "$@"
source "$(dirname "$0")/lib/bridged-machines.sh"
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "lend-relayed: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
command -v nft >/dev/null || { echo "lend-relayed: skipped: needs nft (nftables)" >&2; exit 77; }
command -v mpv >/dev/null || { echo "lend-relayed: skipped: needs mpv" >&2; exit 77; }
command -v ffmpeg >/dev/null || { echo "lend-relayed: skipped: needs ffmpeg" >&2; exit 77; }
[[ -x "$BIN/cowatch" ]] || { echo "missing $BIN/cowatch: swift build" >&2; exit 1; }
BIN=$(cd "$BIN" && pwd)
NAMES=(relay ann carol)
SWITCH=cw-lr-switch
OUT=$(mktemp -d)
declare -A PID
cleanup() {
  set +e
  machines_down lr "${NAMES[@]}"
  # KEEP=DIR keeps the logs there.
  [[ -n "${KEEP:-}" ]] && mkdir -p "$KEEP" && cp "$OUT"/*.log "$KEEP"/
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM
fail() {
  echo "lend-relayed: FAILED: $*" >&2
  for log in "$OUT"/*.log; do echo "--- $log"; grep -v '"event":"sample"' "$log" | tail -25; done >&2
  exit 1
}
now_ms() { date +%s%3N; }
export XDG_CONFIG_HOME="$OUT/config"
export XDG_CACHE_HOME="$OUT/cache"

# ann's copy: the clip the mpv tests use (20 s, 160×120, a tone).
MEDIA="$OUT/media"
mkdir -p "$MEDIA/Night Ferry"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=160x120:rate=24 -f lavfi \
  -i sine=frequency=440:sample_rate=48000 -t 20 -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
  -c:a aac -shortest "$MEDIA/Night Ferry/Night.Ferry.S01E01.Departure.mp4"

# The machines: one bridge (the switch) and a port for each, 10.81.0.1 to .3.
machines_up lr 81 "${NAMES[@]}"
# carol and ann cannot reach each other (dropped, not refused: as across two home routers);
# both reach the relay.
ip netns exec "$SWITCH" nft -f - <<'NFT'
table bridge apart {
  chain forward {
    type filter hook forward priority 0; policy accept;
    ip saddr 10.81.0.2 ip daddr 10.81.0.3 drop
    ip saddr 10.81.0.3 ip daddr 10.81.0.2 drop
  }
}
NFT
ip netns exec cw-lr-carol ping -c1 -W1 "${ADDRESS[ann]}" >/dev/null 2>&1 &&
  fail "carol reaches ann directly: the cut does not hold"

# One program at one machine; a person reads what is appended to $OUT/NAME.in.
run() {  # name log cowatch-arguments…
  local name=$1 log=$2
  shift 2
  : >"$OUT/$log.in"
  ip netns exec "cw-lr-$name" env XDG_STATE_HOME="$OUT/state-$name" bash -c \
    'tail -n +1 -f "$1" | exec "$2" "${@:3}"' _ "$OUT/$log.in" "$BIN/cowatch" "$@" \
    >"$OUT/$log.log" 2>&1 &
  PID[$log]=$!
  disown
}
stop() {  # name: everything running at that machine
  for pid in $(ip netns pids "cw-lr-$1" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
}
say() { echo "$2" >>"$OUT/$1.in"; }
has() {  # log after pattern…
  local log=$1 after=$2
  shift 2
  tail -n +"$((after + 1))" "$OUT/$log.log" 2>/dev/null | awk -v n="$#" '
    BEGIN { for (i = 1; i <= n; i++) p[i] = ARGV[i]; ARGC = 1 }
    { ok = 1; for (i = 1; i <= n; i++) if (index($0, p[i]) == 0) { ok = 0; break }
      if (ok) { found = 1; exit } }
    END { exit !found }' "$@"
}
seen() {  # log seconds after pattern…
  local log=$1 until=$(($(now_ms) + $2 * 1000)) after=$3
  shift 3
  while (($(now_ms) < until)); do
    has "$log" "$after" "$@" && return 0
    sleep 0.05
  done
  return 1
}
# The first line of LOG with every pattern.
line() {  # log pattern…
  local log=$1
  shift
  awk -v n="$#" '
    BEGIN { for (i = 1; i <= n; i++) p[i] = ARGV[i]; ARGC = 1 }
    { ok = 1; for (i = 1; i <= n; i++) if (index($0, p[i]) == 0) { ok = 0; break }
      if (ok) { print; exit } }' "$@" <"$OUT/$log.log"
}
# Whether a metric's value (Prometheus writes 1.0) is at least N.
at_least() { [[ -n "$1" ]] && awk -v v="$1" -v n="$2" 'BEGIN { exit !(v + 0 >= n) }'; }
field() { sed -n "s/.*\"$2\":\\([0-9.]*\\).*/\\1/p" <<<"$1"; }
metric() {  # name: the relay's metric now
  ip netns exec cw-lr-relay curl -s "http://${ADDRESS[relay]}:9470/metrics" |
    awk -v m="$1" '$1 == m { print $2 }'
}

COMMON=(--headless --trust-new-relay --player mpv --sample-ms 200 --log-level info)
# A room, ann lending and carol borrowing, at a relay started with RELAY_ARGS; ann starts.
room() {  # tag relay-arguments…
  local tag=$1
  shift
  run relay "relay-$tag" serve --host "${ADDRESS[relay]}" --port 7700 --store memory \
    --metrics "${ADDRESS[relay]}:9470" "$@"
  seen "relay-$tag" 15 0 "relay listening" || fail "the relay ($tag) did not start"
  run ann "ann-$tag" join "${ADDRESS[relay]}:7700" --name ann --media "$MEDIA" --lend "${COMMON[@]}"
  run carol "carol-$tag" join "${ADDRESS[relay]}:7700" --name carol "${COMMON[@]}"
  for person in ann carol; do
    seen "$person-$tag" 20 0 '"event":"welcome"' || fail "$person did not get in ($tag)"
  done
  say "ann-$tag" "start night-ferry/s1e1"
  seen "carol-$tag" 15 0 '"event":"session"' '"phase":"waiting"' || fail "carol: no session ($tag)"
  say "carol-$tag" join
}

# 1. A relay that carries lent copies: carol plays ann's copy through it, in step.
room carried --lend-relay-rate 8MB/s
started=$(now_ms)
seen carol-carried 40 0 '"event":"sample"' '"item":"night-ferry/s1e1"' '"rate":1' ||
  fail "carol's mpv did not play ann's copy through the relay"
echo "lend-relayed: carol plays ann's copy through the relay after $(($(now_ms) - started)) ms"
has carol-carried 0 "directly; asking the relay" || fail "carol did not fall back to the relay"
has ann-carried 0 "lending through the relay to" || fail "ann did not serve through the relay"
bytes=$(metric cowatch_tunnel_bytes_total)
at_least "$bytes" 1 || fail "the relay's metrics count no bytes carried ($bytes)"
open=$(metric cowatch_tunnels_open)
at_least "$open" 1 || fail "the relay's metrics show no open tunnel ($open)"
mark=$(wc -l <"$OUT/carol-carried.log")
say ann-carried "seek 12"
seen carol-carried 15 "$mark" '"event":"sample"' '"rate":1' '"group_position":12.' ||
  fail "carol did not follow ann's seek"
sample=$(tail -n +"$((mark + 1))" "$OUT/carol-carried.log" |
  grep -F '"event":"sample"' | grep -F '"rate":1' | grep -F '"group_position":12.' | head -1)
position=$(field "$sample" position)
group=$(field "$sample" group_position)
awk -v p="$position" -v g="$group" 'BEGIN { d = p - g; if (d < 0) d = -d; exit !(d < 0.15) }' ||
  fail "carol plays at $position, the group at $group"
echo "lend-relayed: carol plays in step through the relay (at $position, the group at $group; $bytes bytes carried)"
stop ann
stop carol
stop relay

# 2. A serve relay without --lend-relay-rate does not carry it: carol steps away saying why.
room refused
# What carol reads (an event, not a log line): the copy could not be opened, and why.
seen carol-refused 30 0 '"event":"error"' "stepping away until the group plays something you have" \
  "ann's copy" "does not carry lent copies" ||
  fail "carol did not step away saying the relay does not carry lent copies"
has carol-refused 0 '"event":"sample"' '"rate":1' '"item":"night-ferry/s1e1"' &&
  fail "carol played without a copy"
refused=$(metric cowatch_tunnels_refused_total)
at_least "$refused" 1 || fail "the refusal is not counted ($refused)"
echo "lend-relayed: a relay without --lend-relay-rate does not carry it; carol steps away saying why"
stop ann
stop carol
stop relay

# 3. A host's relay carries lent copies for its own room, without being told.
run relay hal host --headless --name hal --room movie-night --bind "${ADDRESS[relay]}" \
  --port 7700 --no-advertise --no-port-mapping
seen hal 15 0 '"event":"invite"' || fail "hal's room did not start"
link=$(grep -m1 '"event":"invite"' "$OUT/hal.log" | sed 's/.*"link":"\([^"]*\)".*/\1/')
run ann ann-hosted join "$link" --name ann --media "$MEDIA" --lend "${COMMON[@]}"
run carol carol-hosted join "$link" --name carol "${COMMON[@]}"
for person in ann-hosted carol-hosted; do
  seen "$person" 20 0 '"event":"welcome"' || fail "$person did not get into hal's room"
done
say ann-hosted "start night-ferry/s1e1"
for person in hal carol-hosted; do
  seen "$person" 15 0 '"event":"session"' '"phase":"waiting"' || fail "$person: no session (hosted)"
  say "$person" join
done
seen carol-hosted 40 0 '"event":"sample"' '"item":"night-ferry/s1e1"' '"rate":1' ||
  fail "carol's mpv did not play ann's copy through hal's relay"
has carol-hosted 0 "directly; asking the relay" || fail "carol did not go through hal's relay"
echo "lend-relayed: a host's relay carries ann's copy for its room: carol plays it"
echo "lend-relayed: all checks passed"
