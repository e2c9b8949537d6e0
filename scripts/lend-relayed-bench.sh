#!/usr/bin/env bash
# What a relay spends per lent stream it carries, at the bitrate of a 1080p episode: a relay,
# ann (who lends a generated 1080p clip) and STREAMS borrowers (mpv, no media), on three
# machines (network namespaces) where the borrowers cannot reach ann, so every lent byte
# goes through the relay's tunnels. The borrowers' mpv read as they play (no cache: the
# pace of the film, not a read-ahead burst) and decode only key frames (the relay is what is
# measured). Measures the relay process's CPU and resident memory over a window of steady
# playback, before any tunnel and with them, and the bytes it carried.
#
# usage: scripts/lend-relayed-bench.sh [STREAMS [SECONDS]]
#   (root; BIN=DIR where cowatch is, default .build/release; MBPS=video Mbit/s, default 6)
set -euo pipefail
source "$(dirname "$0")/lib/unblock-signals.sh" "$0" "$@"
source "$(dirname "$0")/lib/bridged-machines.sh"
cd "$(dirname "$0")/.."
STREAMS=${1:-4}
WINDOW=${2:-20}
BIN=${BIN:-.build/release}
MBPS=${MBPS:-6}
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "lend-relayed-bench: skipped: making network namespaces needs root and iproute2" >&2
  exit 77
fi
for tool in nft mpv ffmpeg curl; do
  command -v "$tool" >/dev/null || { echo "lend-relayed-bench: skipped: needs $tool" >&2; exit 77; }
done
[[ -x "$BIN/cowatch" ]] || { echo "missing $BIN/cowatch: swift build -c release --product cowatch" >&2; exit 1; }
BIN=$(cd "$BIN" && pwd)
NAMES=(relay ann carol)
SWITCH=cw-lb-switch
OUT=$(mktemp -d)
cleanup() {
  set +e
  machines_down lb "${NAMES[@]}"
  [[ -n "${KEEP:-}" ]] && mkdir -p "$KEEP" && cp "$OUT"/*.log "$KEEP"/
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM
fail() {
  echo "lend-relayed-bench: FAILED: $*" >&2
  for log in "$OUT"/*.log; do echo "--- $log"; grep -v '"event":"sample"' "$log" | tail -15; done >&2
  exit 1
}
now_ms() { date +%s%3N; }
export XDG_CONFIG_HOME="$OUT/config"
export XDG_CACHE_HOME="$OUT/cache"

# The clip: 1080p24 at MBPS Mbit/s (grain, so the encoder cannot do with less), 90 s.
MEDIA="$OUT/media"
mkdir -p "$MEDIA/Night Ferry"
CLIP="$MEDIA/Night Ferry/Night.Ferry.S01E01.Departure.mp4"
started=$(now_ms)
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=24 -f lavfi \
  -i sine=frequency=440:sample_rate=48000 -t 90 -vf noise=alls=30:allf=t -c:v libx264 \
  -preset ultrafast -b:v "${MBPS}M" -maxrate "${MBPS}M" -bufsize "$((MBPS * 2))M" \
  -pix_fmt yuv420p -c:a aac -b:a 128k -shortest "$CLIP"
size=$(stat -c %s "$CLIP")
clip_rate=$((size / 90))
echo "lend-relayed-bench: clip 1920x1080, 90 s, $((size / 1000000)) MB: $((clip_rate * 8 / 1000)) kbit/s ($(( $(now_ms) - started )) ms to make)"

machines_up lb 82 "${NAMES[@]}"
ip netns exec "$SWITCH" nft -f - <<'NFT'
table bridge apart {
  chain forward {
    type filter hook forward priority 0; policy accept;
    ip saddr 10.82.0.2 ip daddr 10.82.0.3 drop
    ip saddr 10.82.0.3 ip daddr 10.82.0.2 drop
  }
}
NFT

run() {  # machine log cowatch-arguments…
  local name=$1 log=$2
  shift 2
  : >"$OUT/$log.in"
  ip netns exec "cw-lb-$name" env XDG_STATE_HOME="$OUT/state-$log" bash -c \
    'tail -n +1 -f "$1" | exec "$2" "${@:3}"' _ "$OUT/$log.in" "$BIN/cowatch" "$@" \
    >"$OUT/$log.log" 2>&1 &
  disown
}
say() { echo "$2" >>"$OUT/$1.in"; }
seen() {  # log seconds pattern…
  local log=$1 until=$(($(now_ms) + $2 * 1000))
  shift 2
  while (($(now_ms) < until)); do
    awk -v n="$#" 'BEGIN { for (i = 1; i <= n; i++) p[i] = ARGV[i]; ARGC = 1 }
      { ok = 1; for (i = 1; i <= n; i++) if (index($0, p[i]) == 0) { ok = 0; break }
        if (ok) { found = 1; exit } } END { exit !found }' "$@" <"$OUT/$log.log" && return 0
    sleep 0.1
  done
  return 1
}
metric() {
  ip netns exec cw-lb-relay curl -s "http://${ADDRESS[relay]}:9470/metrics" |
    awk -v m="$1" '$1 == m { printf "%d\n", $2 }'
}

run relay relay serve --host "${ADDRESS[relay]}" --port 7700 --store memory \
  --metrics "${ADDRESS[relay]}:9470" --lend-relay-rate 1GB/s --log-level warning
seen relay 15 "relay listening" || fail "the relay did not start"
RELAY=""
for pid in $(ip netns pids cw-lb-relay); do
  [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == cowatch ]] && RELAY=$pid
done
[[ -n "$RELAY" ]] || fail "no relay process"
cpu() { awk '{ print $14 + $15 }' "/proc/$RELAY/stat"; }  # clock ticks
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$RELAY/status"; }  # KiB
TICK=$(getconf CLK_TCK)

PLAYER=(--headless --trust-new-relay --player mpv --sample-ms 1000
  --mpv-args "--vo=null --ao=null --cache=no --demuxer-max-bytes=4MiB --demuxer-readahead-secs=2 --vd-lavc-skipframe=nonkey")
run ann ann join "${ADDRESS[relay]}:7700" --name ann --media "$MEDIA" --lend "${PLAYER[@]}"
seen ann 20 '"event":"welcome"' || fail "ann did not get in"
for i in $(seq 1 "$STREAMS"); do
  run carol "carol$i" join "${ADDRESS[relay]}:7700" --name "carol$i" "${PLAYER[@]}"
  seen "carol$i" 20 '"event":"welcome"' || fail "carol$i did not get in"
done
# The relay's own cost with these members and no tunnel (pings, ticks), to subtract.
idle0=$(cpu)
i0=$(now_ms)
sleep 10
idle=$(awk -v c=$(($(cpu) - idle0)) -v tick="$TICK" -v ms=$(($(now_ms) - i0)) \
  'BEGIN { printf "%.3f", c / tick / (ms / 1000) * 100 }')
rss_before=$(rss)
say ann "start night-ferry/s1e1"
for i in $(seq 1 "$STREAMS"); do
  seen "carol$i" 15 '"event":"session"' '"phase":"waiting"' || fail "carol$i: no session"
  say "carol$i" join
done
for i in $(seq 1 "$STREAMS"); do
  seen "carol$i" 60 '"event":"sample"' '"item":"night-ferry/s1e1"' '"rate":1' ||
    fail "carol$i does not play through the relay"
done
open=$(metric cowatch_tunnels_open)
[[ "$open" -ge "$STREAMS" ]] || fail "$open tunnels open for $STREAMS streams"
# Settled: the window starts a few seconds in (mpv's first reads are a burst).
sleep 5
cpu0=$(cpu)
bytes0=$(metric cowatch_tunnel_bytes_total)
t0=$(now_ms)
peak=0
until=$((t0 + WINDOW * 1000))
while (($(now_ms) < until)); do
  r=$(rss)
  ((r > peak)) && peak=$r
  sleep 0.2
done
cpu1=$(cpu)
bytes1=$(metric cowatch_tunnel_bytes_total)
t1=$(now_ms)
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')
awk -v s="$STREAMS" -v c=$((cpu1 - cpu0)) -v tick="$TICK" -v secs="$seconds" \
  -v bytes=$((bytes1 - bytes0)) -v before="$rss_before" -v peak="$peak" -v clip="$clip_rate" \
  -v idle="$idle" 'BEGIN {
  cpu = c / tick / secs * 100
  rate = bytes / secs
  printf "lend-relayed-bench: %d streams for %.1f s: the relay carried %.2f MB/s (%.0f kbit/s a stream; the clip is %.0f kbit/s)\n", s, secs, rate / 1e6, rate * 8 / 1000 / s, clip * 8 / 1000
  printf "lend-relayed-bench: relay CPU %.2f%% of a core in all, %.2f%% without the streams: %.2f%% a stream (%.2f%% per MB/s carried)\n", cpu, idle, (cpu - idle) / s, (cpu - idle) / (rate / 1e6)
  printf "lend-relayed-bench: relay resident memory %.1f MiB before the streams, %.1f MiB at most with them: %.0f KiB a stream\n", before / 1024, peak / 1024, (peak - before) / s
}'
