#!/usr/bin/env bash
# A room split in two, for real: five machines (network namespaces on one bridge), hal
# hosting, ann, bob, carl and dan joined; then the network is cut between {hal, ann} and
# {bob, carl, dan} (nftables on the bridge drops everything between the two sides, as a
# failing switch would: no resets, only silence). Checks that only the larger side goes on
# (bob, carl and dan elect a successor and play on; hal's relay tells hal and ann it lost
# touch and refuses their changes and chat), that nothing either side did is lost or
# doubled, and that once the network heals hal's relay finds the room at the successor's
# and sends hal and ann there: one room again. Measures how long each step took. Tears
# everything down on exit.
#
# usage: scripts/partition.sh    (root; BIN=DIR where cowatch is, default .build/debug)
set -euo pipefail
source "$(dirname "$0")/lib/unblock-signals.sh" "$0" "$@"
source "$(dirname "$0")/lib/bridged-machines.sh"
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "partition: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
command -v nft >/dev/null || { echo "partition: skipped: needs nft (nftables)" >&2; exit 77; }
[[ -x "$BIN/cowatch" ]] || { echo "missing $BIN/cowatch: swift build" >&2; exit 1; }
NAMES=(hal ann bob carl dan)
SWITCH=cw-pt-switch
OUT=$(mktemp -d)
declare -A PID
cleanup() {
  set +e
  machines_down pt "${NAMES[@]}"
  pkill -f "tail -n \+1 -f $OUT/" 2>/dev/null
  # KEEP=DIR keeps the five logs there.
  [[ -n "${KEEP:-}" ]] && mkdir -p "$KEEP" && cp "$OUT"/*.log "$KEEP"/
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM
fail() {
  echo "partition: FAILED: $*" >&2
  for name in "${NAMES[@]}"; do echo "--- $name"; tail -25 "$OUT/$name.log"; done >&2
  exit 1
}
now_ms() { date +%s%3N; }
export XDG_CONFIG_HOME="$OUT/config"

# The machines: one bridge (the switch) and a port for each, 10.79.0.1 to .5.
machines_up pt 79 "${NAMES[@]}"

# One person at one machine, headless, reading what is appended to $OUT/NAME.in.
person() {  # name cowatch-arguments…
  local name=$1
  shift
  : >"$OUT/$name.in"
  ip netns exec "cw-pt-$name" env XDG_STATE_HOME="$OUT/state-$name" bash -c \
    'tail -n +1 -f "$1" | exec "$2" "${@:3}"' _ "$OUT/$name.in" "$BIN/cowatch" "$@" \
    >"$OUT/$name.log" 2>&1 &
  PID[$name]=$!
  disown  # killed at the end, without the shell's word for it
}
say() { echo "$2" >>"$OUT/$1.in"; }
# Whether NAME's output has a line with every pattern (fixed strings) past its first
# `after` lines.
has() {  # name after pattern…
  local name=$1 after=$2
  shift 2
  tail -n +"$((after + 1))" "$OUT/$name.log" 2>/dev/null | awk -v n="$#" '
    BEGIN { for (i = 1; i <= n; i++) p[i] = ARGV[i]; ARGC = 1 }
    { ok = 1; for (i = 1; i <= n; i++) if (index($0, p[i]) == 0) { ok = 0; break }
      if (ok) { found = 1; exit } }
    END { exit !found }' "$@"
}
# Waits until it has, for at most `seconds`.
seen() {  # name seconds after pattern…
  local name=$1 until=$(($(now_ms) + $2 * 1000)) after=$3
  shift 3
  while (($(now_ms) < until)); do
    has "$name" "$after" "$@" && return 0
    sleep 0.05
  done
  return 1
}
lines() { wc -l <"$OUT/$1.log"; }
count() { grep -cF -- "$2" "$OUT/$1.log" || true; }

person hal host --headless --name hal --room movie-night --bind "${ADDRESS[hal]}" --port 7700 \
  --no-advertise --no-port-mapping
seen hal 15 0 '"event":"invite"' || fail "hal's room did not start"
link=$(grep -m1 '"event":"invite"' "$OUT/hal.log" | sed 's/.*"link":"\([^"]*\)".*/\1/')
[[ "$link" == cowatch://movie-night@10.79.0.1:7700/fp=* ]] || fail "link: $link"
for name in ann bob carl dan; do
  person "$name" join "$link" --name "$name" --headless
  seen "$name" 15 0 '"event":"welcome"' || fail "$name did not get in"
done
seen hal 15 0 '"event":"succession"' '"ann","bob","carl","dan"' || fail "not everyone offers to carry"
say hal "start harbour/s1e1"
for name in ann bob carl dan; do
  seen "$name" 10 0 '"event":"session"' '"phase":"waiting"' || fail "$name: no session"
  say "$name" join
done
seen hal 10 0 '"kind":"joined"' '"originator":"dan"' || fail "dan did not join the session"
for name in "${NAMES[@]}"; do
  seen "$name" 15 0 '"kind":"wait-ended"' || fail "$name: the session did not start playing"
done
echo "partition: five machines watch together (hal hosts)"

# The cut: the bridge drops everything between {hal, ann} and {bob, carl, dan}.
declare -A MARK
for name in "${NAMES[@]}"; do MARK[$name]=$(lines "$name"); done
cut_at=$(now_ms)
ip netns exec "$SWITCH" nft -f - <<'NFT'
table bridge cut {
  chain forward {
    type filter hook forward priority 0; policy accept;
    ip saddr { 10.79.0.1, 10.79.0.2 } ip daddr { 10.79.0.3, 10.79.0.4, 10.79.0.5 } drop
    ip saddr { 10.79.0.3, 10.79.0.4, 10.79.0.5 } ip daddr { 10.79.0.1, 10.79.0.2 } drop
  }
}
NFT
# The larger side elects a successor and goes on there; hal's relay says it lost touch, to
# hal and to ann. Each is timed from the cut.
declare -A AT=()
found=0
until=$(($(now_ms) + 60000))
while ((found < 5)) && (($(now_ms) < until)); do
  for name in "${NAMES[@]}"; do
    [[ -n "${AT[$name]:-}" ]] && continue
    case $name in
      hal | ann) has "$name" "${MARK[$name]}" "lost touch with bob, carl and dan" ;;
      *) has "$name" "${MARK[$name]}" '"event":"welcome"' '"resumed":true' ;;
    esac && AT[$name]=$(($(now_ms) - cut_at)) && found=$((found + 1))
  done
  sleep 0.02
done
for name in bob carl dan; do [[ -n "${AT[$name]:-}" ]] || fail "$name did not go on with the others"; done
for name in hal ann; do [[ -n "${AT[$name]:-}" ]] || fail "$name was not told the room lost touch"; done
echo "partition: cut: bob, carl and dan back with the group at a successor after ${AT[bob]}, ${AT[carl]}, ${AT[dan]} ms; hal and ann told after ${AT[hal]}, ${AT[ann]} ms"

# On the smaller side a change and a chat are refused in words, and reach nobody.
say ann "pause"
seen ann 10 "${MARK[ann]}" '"input":"pause"' "cut off from bob, carl and dan" ||
  fail "ann's pause was not refused"
say ann "say are you there?"
seen ann 10 "${MARK[ann]}" "not delivered" "cut off from bob, carl and dan" ||
  fail "ann's chat was not refused"
# On the larger side, everything works: carl pauses, chats; bob and dan see it once.
say carl "pause"
say carl "say still here"
for name in bob dan; do
  seen "$name" 10 "${MARK[$name]}" '"kind":"paused"' '"originator":"carl"' || fail "$name: no pause from carl"
  seen "$name" 10 "${MARK[$name]}" '"event":"chat"' '"from":"carl"' "still here" || fail "$name: no chat from carl"
done
echo "partition: the smaller side's change and chat were refused; the larger side paused and chatted"

# The network heals: hal's relay finds the room at the successor's and sends its people there.
for name in "${NAMES[@]}"; do MARK[$name]=$(lines "$name"); done
healed_at=$(now_ms)
ip netns exec "$SWITCH" nft delete table bridge cut
for name in hal ann; do
  seen "$name" 30 "${MARK[$name]}" '"event":"moved"' || fail "$name was not sent to the room's relay"
  seen "$name" 20 "${MARK[$name]}" '"event":"welcome"' || fail "$name did not get back in"
done
merged_ms=$(($(now_ms) - healed_at))
# One room: ann plays; everyone else sees it once.
for name in "${NAMES[@]}"; do MARK[$name]=$(lines "$name"); done
say ann "play"
for name in hal bob carl dan; do
  seen "$name" 15 "${MARK[$name]}" '"kind":"played"' '"originator":"ann"' ||
    seen "$name" 1 "${MARK[$name]}" '"kind":"resumed"' '"originator":"ann"' ||
    fail "$name did not see ann's play"
done
echo "partition: healed: hal and ann were sent to the room's relay after ${merged_ms} ms; one room again"

# Nothing lost, nothing doubled: carl's pause and chat once at each of the others; ann's
# refused pause and chat nowhere.
for name in bob dan; do
  [[ $(count "$name" '"originator":"carl"') -ge 1 ]] || fail "$name lost carl's changes"
  n=$(grep -F '"event":"chat"' "$OUT/$name.log" | grep -cF "still here" || true)
  [[ "$n" == 1 ]] || fail "$name got carl's chat $n times"
done
for name in hal bob carl dan; do
  n=$(grep -F '"event":"chat"' "$OUT/$name.log" | grep -cF "are you there?" || true)
  [[ "$n" == 0 ]] || fail "ann's refused chat reached $name"
done
for name in bob carl dan; do
  n=$(grep -F '"kind":"paused"' "$OUT/$name.log" | grep -cF '"originator":"ann"' || true)
  [[ "$n" == 0 ]] || fail "ann's refused pause reached $name"
done
echo "partition: nothing lost or doubled"
echo "partition: all checks passed"
