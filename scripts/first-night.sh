#!/usr/bin/env bash
# A first watch night, played as three people would play it, in tmux, against real
# `cowatch` processes (the terminal front, simulated players, loopback only), N times.
#
#   scripts/first-night.sh [RUNS]          (default 1; BIN=DIR picks $BIN/cowatch, default the debug build, .build/debug)
#
# Each run plays the night below; every numbered step is checked by reading the screens
# (tmux capture-pane), on every person's screen where it matters:
#   1 ann hosts room movie-night on 127.0.0.1 (a free port); her screen shows the invite link
#   2 bob, then carol join with that link; all three screens show "People (3)"
#   3 ann starts S1E1 with "Watch together"; the group holds ("asked to join") until bob
#     and carol press j; then everyone plays from 0:00 together
#   4 bob pauses, carol seeks +10 s, ann plays: each is read by the others, header ⏸/▶
#   5 carol queues S1E3 from the episode picker (u): everyone's player pane shows "up next"
#   6 bob turns auto-advance on, ann seeks near the end of S1E1: everyone reads
#     "auto-advanced to S1E3 · …" and keeps playing
#   7 ann quits "only me": the room moves to bob's machine; bob and carol go on together;
#     bob's `i` invite names bob's relay
#   8 kill -9 of bob's cowatch: carol's screen shows the room going on on her machine (not
#     "disconnected"); dave joins late with the link carol's `i` shows and sees the session
#
# A step that fails prints what the screen showed (and the tail of that person's log) and
# ends its run (the later steps depend on it); the next run starts afresh. At the end: per
# step, how many runs passed it; timings (min / median / max); exit status 0 only when
# every run passed every step.
#
# Isolation: a mktemp -d directory (removed on exit) holding a private tmux server's socket
# (sessions fn-ann, fn-bob, fn-carol, fn-dave) and a HOME, XDG_CONFIG_HOME and
# XDG_STATE_HOME per person. Loopback only: ann's relay binds 127.0.0.1 (--no-advertise,
# --no-port-mapping: no mDNS, no router), and every link names 127.0.0.1. (Each joiner's
# carry relay listens on 0.0.0.0: cowatch has no flag for its address; nothing reaches it
# but over 127.0.0.1 here.) Nothing is built: cowatch runs from $BIN, with the repository
# as its working directory (for Media/catalog.yaml).
#
# FN_DEBUG=1 prints how long each wait took (and two screens of step 8). To watch a run
# live: tmux -S SOCKET attach -r -t fn-carol (SOCKET as printed at the start; a client
# attached may resize the 120×35 window, which the checks do not rely on but may disturb).
set -u -o pipefail

RUNS=${1:-1}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [RUNS]" >&2; exit 2; }
BIN=${BIN:-$(cd "$(dirname "$0")/.." && pwd)/.build/debug}
COWATCH=$BIN/cowatch
REPO=$(cd "$(dirname "$0")/.." && pwd)
[[ -x $COWATCH ]] || { echo "no cowatch at $COWATCH (set BIN=DIR)" >&2; exit 2; }
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 2; }

TOP=$(mktemp -d -t fn-night.XXXXXX)
SOCKET=$TOP/tmux.sock   # a private tmux server, its socket inside the temporary directory
PEOPLE=(ann bob carol dave)
STARTED_PIDS=()   # every cowatch process this script started, to end by id at the end

tm() { tmux -S "$SOCKET" "$@"; }
now_ns() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

# Ends what this script started: its tmux sessions (a closed terminal: the fronts leave),
# then, by pid, any cowatch process of ours still there.
end_sessions() {
  local p pid
  for p in "${PEOPLE[@]}"; do tm kill-session -t "=fn-$p" 2>/dev/null; done
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "${STARTED_PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "${STARTED_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  STARTED_PIDS=()
}
cleanup() {
  end_sessions
  tm kill-server 2>/dev/null
  rm -rf "$TOP"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

# ---------------------------------------------------------------- screens and waiting

SCREEN=""   # the last capture wait_screen read
screen() { tm capture-pane -p -t "=fn-$1:" 2>/dev/null; }

# Prints a person's screen (and the end of their log) under a failure.
show() {
  local who=$1
  echo "    ---- fn-$who's screen ----"
  screen "$who" | sed 's/^/    | /'
  local log="$RUN_DIR/$who/state/cowatch/cowatch-$who.log"
  if [[ -s $log ]]; then
    echo "    ---- last lines of $who's log ----"
    tail -n 8 "$log" | cut -c1-240 | sed 's/^/    : /'
  fi
  if [[ -s $RUN_DIR/$who.err ]]; then
    echo "    ---- $who's stderr ----"
    tail -n 5 "$RUN_DIR/$who.err" | sed 's/^/    : /'
  fi
}
fail() { # WHO MESSAGE: a check that is not a wait failed
  echo "    ✗ $2"
  show "$1"
  return 1
}

# wait_screen WHO SECONDS TEXT...: polls WHO's screen every 0.1 s until one capture holds
# every TEXT (fixed strings); on timeout prints what the screen showed. FORBID (set for
# one call: FORBID=disconnected wait_screen …) is a text that must not appear meanwhile:
# seen, the wait fails at once.
FORBID=""
wait_screen() {
  local who=$1 seconds=$2; shift 2
  local start; start=$(now_ns)
  local deadline=$(( start + ${seconds%.*} * 1000000000 )) t ok
  while true; do
    SCREEN=$(screen "$who")
    if [[ -n $FORBID && $SCREEN == *"$FORBID"* ]]; then
      echo "    ✗ fn-$who's screen showed \"$FORBID\" while waiting for: $*"
      show "$who"
      return 1
    fi
    ok=1
    for t in "$@"; do [[ $SCREEN == *"$t"* ]] || { ok=0; break; }; done
    if ((ok)); then
      [[ -n ${FN_DEBUG:-} ]] && echo "      ($(since "$start")s) fn-$who: $*" >&2
      return 0
    fi
    if (( $(now_ns) > deadline )); then
      local missing=() ; for t in "$@"; do [[ $SCREEN == *"$t"* ]] || missing+=("\"$t\""); done
      echo "    ✗ fn-$who's screen never showed ${missing[*]} within $seconds s"
      show "$who"
      return 1
    fi
    sleep 0.1
  done
}
# The helper the brief names: wait_for NAME "text" SECONDS.
wait_for() { wait_screen "$1" "$3" "$2"; }
# The same TEXTs on several screens: wait_all "ann bob" SECONDS TEXT...
wait_all() { local w; for w in $1; do wait_screen "$w" "$2" "${@:3}" || return 1; done; }

# The newest notice matching an extended regex (notices are listed newest first).
newest() { grep -oE -- "$1" <<<"$SCREEN" | head -n 1; }
secs() { local m=${1%%:*} s=${1##*:}; echo $(( 10#$m * 60 + 10#$s )); }
clock() { printf '%d:%02d' $(( $1 / 60 )) $(( $1 % 60 )); }

# The link in the Invite prompt (`i`), read off the screen as a person would select it:
# the box's lines from "cowatch join" to "--name NAME", joined (the link has no spaces).
invite_from_screen() {
  local line col=-1 inner text="" started=0
  while IFS= read -r line; do
    if (( col < 0 )); then
      [[ $line == *"┌ Invite "* ]] || continue
      local pre=${line%%┌ Invite *}; col=${#pre}; continue
    fi
    [[ ${line:col:1} == "└" ]] && break
    inner=${line:col+1}; inner=${inner%%│*}
    if (( !started )); then [[ $inner == *"cowatch join"* ]] && started=1 || continue; fi
    text+=${inner// /}
    [[ $text == *"--nameNAME"* ]] && break     # "--name NAME" may itself wrap
  done <<<"$SCREEN"
  text=${text#cowatchjoin}; text=${text%--nameNAME}
  printf '%s' "$text"
}

# Opens WHO's invite prompt, reads the link off the screen, copies it (OSC 52 into tmux's
# buffer, set-clipboard on) and checks that the clipboard holds the same link. Sets LINK.
read_invite() {
  local who=$1
  tm send-keys -t "=fn-$who:" i
  wait_screen "$who" 5 "┌ Invite " "Others join with:" "Copy to clipboard" || return 1
  LINK=$(invite_from_screen)
  [[ $LINK == cowatch://movie-night@*/fp=* ]] || fail "$who" "no whole link in the Invite prompt (read: '$LINK')" || return 1
  while tm delete-buffer 2>/dev/null; do :; done
  tm send-keys -t "=fn-$who:" Enter          # "Copy to clipboard" is selected; Enter copies and closes
  wait_screen "$who" 5 "invite sent to the clipboard" || return 1
  local copied; copied=$(tm show-buffer 2>/dev/null)
  [[ $copied == "cowatch join $LINK --name NAME" ]] ||
    fail "$who" "the clipboard holds '$copied', the screen showed '$LINK'" || return 1
}

# ---------------------------------------------------------------- people

# start WHO ARGS...: a terminal (tmux session fn-WHO, 120×35) running `cowatch ARGS` as WHO,
# with WHO's own HOME and XDG directories; stderr to $RUN_DIR/WHO.err. When cowatch ends the
# pane shows "[exited STATUS]".
start() {
  local who=$1; shift
  local d=$RUN_DIR/$who
  mkdir -p "$d/home" "$d/config" "$d/state"
  local cmd
  cmd=$(printf '%q ' env HOME="$d/home" XDG_CONFIG_HOME="$d/config" XDG_STATE_HOME="$d/state" \
    TERM=xterm-256color "$COWATCH" "$@")
  tm new-session -d -s "fn-$who" -x 120 -y 35 -c "$REPO" \
    "$cmd 2>$(printf '%q' "$RUN_DIR/$who.err"); echo \"[exited \$?]\"; sleep 600"
  tm set-option -g set-clipboard on >/dev/null
  local pid; pid=$(pid_of "$who")
  [[ -n $pid ]] && STARTED_PIDS+=("$pid")
}
# The pid of WHO's cowatch process: the child of the pane's shell.
pid_of() {
  local pane pid
  pane=$(tm list-panes -t "=fn-$1:" -F '#{pane_pid}' 2>/dev/null | head -n 1)
  for _ in $(seq 1 30); do
    pid=$(pgrep -P "$pane" -x cowatch 2>/dev/null | head -n 1)
    [[ -n $pid ]] && { echo "$pid"; return; }
    sleep 0.1
  done
}

# ---------------------------------------------------------------- timings

declare -A T=()          # this run's timings, by name
record() { T[$1]=$2; echo "$2" >>"$TOP/timing.$1"; }

# ---------------------------------------------------------------- the steps

STEP_TITLES=(
  ""
  "ann hosts movie-night on 127.0.0.1; invite link on her screen"
  "bob and carol join with the link; People (3) everywhere"
  "Watch together: the group holds for answers, then all play from 0:00"
  "bob pauses, carol seeks +10 s, ann plays; read by the others, ⏸/▶ on all"
  "carol queues S1E3 from the picker (u); up next on every screen"
  "auto-advance on, S1E1 runs out: everyone auto-advanced to S1E3, playing"
  "ann quits only me: room moves to bob's machine; bob's i names it"
  "kill -9 bob: carol's room goes on on her machine; dave joins late"
)

step1() {
  start ann host --name ann --room movie-night --bind 127.0.0.1 --port 0 --no-advertise --no-port-mapping
  # The notices show the invite whole (the player pane wraps it): read it there, as ann would.
  wait_screen ann 20 "People (1)" "Others join with: cowatch join cowatch://movie-night@127.0.0.1:" || return 1
  HOST_LINK=$(grep -oE 'cowatch://movie-night@127\.0\.0\.1:[0-9]+/fp=[A-Za-z0-9_-]{43}' <<<"$SCREEN" | head -n 1)
  [[ -n $HOST_LINK ]] || fail ann "no whole invite link (…/fp= and 43 characters) on ann's screen" || return 1
  # What she printed on stderr says the same.
  grep -qF "Others join with: cowatch join $HOST_LINK --name NAME" "$RUN_DIR/ann.err" ||
    fail ann "ann's stderr does not print the link her screen shows ($HOST_LINK)" || return 1
  ANN_ADDR=${HOST_LINK#cowatch://movie-night@}; ANN_ADDR=${ANN_ADDR%%/*}
}

step2() {
  local t0
  # bob first: he is then the first who offers to carry the room ("next host").
  t0=$(now_ns); start bob join "$HOST_LINK" --name bob
  wait_for bob "People (2)" 20 || return 1
  record join_bob "$(since "$t0")"
  wait_for ann "People (2)" 10 || return 1
  t0=$(now_ns); start carol join "$HOST_LINK" --name carol
  wait_for carol "People (3)" 20 || return 1
  record join_carol "$(since "$t0")"
  wait_all "ann bob" 10 "People (3)" || return 1
  # Who would carry the room: bob, named under his row ("— next host") on ann's screen.
  wait_screen ann 10 "next host" || return 1
  grep -A1 -E '● bob ' <<<"$SCREEN" | grep -q "next host" ||
    fail ann "bob, first to join, is not marked next host" || return 1
}

step3() {
  local t0
  tm send-keys -t =fn-ann: e
  wait_screen ann 5 "enter choose" "Harbour Lights · S1E1 · The Lamp Goes Out" || return 1
  tm send-keys -t =fn-ann: 1                       # the first episode: S1E1, 2:30
  wait_screen ann 5 "Start watching" "[ Watch together ]" || return 1
  tm send-keys -t =fn-ann: w
  # The group holds for the others' answers; ann reads why, for each of them.
  wait_screen ann 10 "waiting for" "bob: asked to join" "carol: asked to join" || return 1
  wait_all "bob carol" 10 "Watch together?" "ann started Harbour Lights — S1E1 · The Lamp Goes Out" || return 1
  # Still holding two seconds later: nobody is brought in mid-scene.
  sleep 2
  SCREEN=$(screen ann)
  [[ $SCREEN == *"asked to join"* && $SCREEN != *"▶ playing"* ]] ||
    fail ann "the group did not hold for bob's and carol's answers" || return 1
  tm send-keys -t =fn-bob: j
  wait_screen ann 10 "bob joined" "carol: asked to join" || return 1
  [[ $SCREEN != *"▶ playing"* ]] || fail ann "the group played before carol answered" || return 1
  t0=$(now_ns); tm send-keys -t =fn-carol: j
  wait_screen ann 15 "everyone is ready; playing from 0:00" "▶ playing" || return 1
  record ready_after_last_answer "$(since "$t0")"
  wait_all "bob carol" 10 "everyone is ready; playing from 0:00" "▶ playing" "S1E1 · The Lamp Goes Out" || return 1
}

step4() {
  local t0 paused jumped
  # bob pauses: the others read who and where; every header says ⏸.
  t0=$(now_ns); tm send-keys -t =fn-bob: Space
  wait_screen carol 10 "bob paused at" "⏸ paused by bob" || return 1
  record pause_seen_by_carol "$(since "$t0")"
  paused=$(newest 'bob paused at [0-9]+:[0-9]{2}'); paused=${paused##* }
  wait_screen ann 10 "bob paused at $paused" "⏸ paused by bob" || return 1
  wait_screen bob 10 "you paused at $paused" "⏸ paused by you" || return 1
  # carol seeks forward 10 s: from where the group paused.
  jumped=$(clock $(( $(secs "$paused") + 10 )))
  tm send-keys -t =fn-carol: Right
  wait_screen ann 10 "carol jumped to $jumped" "⏸ paused by bob" || return 1
  wait_screen bob 10 "carol jumped to $jumped" "⏸ paused by you" || return 1
  wait_screen carol 10 "you jumped to $jumped" "⏸ paused by bob" || return 1
  # ann plays, from where carol jumped to.
  tm send-keys -t =fn-ann: Space
  wait_all "bob carol" 10 "ann played from $jumped" "▶ playing" || return 1
  wait_screen ann 10 "you played from $jumped" "▶ playing" || return 1
}

step5() {
  tm send-keys -t =fn-carol: e
  # The picker opens on the episode playing now.
  wait_screen carol 5 "enter choose" "▸ Harbour Lights · S1E1 · The Lamp Goes Out" || return 1
  tm send-keys -t =fn-carol: Down Down
  wait_screen carol 5 "▸ Harbour Lights · S1E3 · Three Short, One Long" || return 1
  tm send-keys -t =fn-carol: u
  # u queues it and keeps the list open (the picker covers the player pane's last line).
  sleep 0.5
  wait_screen carol 5 "Enter watches it · u adds it to the queue" || return 1
  tm send-keys -t =fn-carol: Escape
  wait_all "ann bob carol" 10 "up next: S1E3 · Three Short, One Long (carol)" || return 1
  wait_all "ann bob" 5 "carol added S1E3 · Three Short, One Long to the queue" || return 1
  wait_screen carol 5 "you added S1E3 · Three Short, One Long to the queue" || return 1
}

step6() {
  local up final k end=150 left   # S1E1 is 2:30
  tm send-keys -t =fn-bob: a
  wait_screen bob 10 "you turned auto-advance on" "↻ auto-advance" || return 1
  wait_all "ann carol" 10 "bob turned auto-advance on" || return 1
  # ann goes near the end: ↑ (+1 min), then as many → (+10 s, quick presses add up) as
  # bring the group to 2:20 or so.
  tm send-keys -t =fn-ann: Up
  wait_screen ann 10 "you jumped to" || return 1
  up=$(newest 'you jumped to [0-9]+:[0-9]{2}'); up=$(secs "${up##* }")
  k=$(( up < end - 20 ? (end - 10 - up) / 10 : 0 ))
  final=$(( up + 10 * k ))
  if (( k > 0 )); then
    local keys=(); for _ in $(seq 1 "$k"); do keys+=(Right); done
    tm send-keys -t =fn-ann: "${keys[@]}"
    wait_screen ann 10 "you jumped to $(clock "$final")" || return 1
    wait_all "bob carol" 10 "ann jumped to $(clock "$final")" || return 1
  fi
  left=$(( end - final ))
  # The episode runs out; the group goes on to the queue's first entry (S1E3, not S1E2).
  wait_all "ann bob carol" $(( left + 20 )) "auto-advanced to S1E3 · Three Short, One Long" || return 1
  local w
  for w in ann bob carol; do
    wait_screen "$w" 15 "S1E3 · Three Short, One Long" "▶ playing" || return 1
    [[ $SCREEN != *"up next:"* ]] || fail "$w" "the queue still shows an entry after it was played" || return 1
  done
}

step7() {
  local t0 moved
  tm send-keys -t =fn-ann: q
  wait_screen ann 5 "Quit" "End for everyone" "[ Only me ]" "Cancel" || return 1
  t0=$(now_ns); tm send-keys -t =fn-ann: o
  # carol follows the room to bob's machine with her place, and is told so; bob is told
  # it runs on his. Neither screen may show "disconnected" meanwhile (FORBID).
  FORBID=disconnected wait_screen carol 20 "ann left the room" "the room now runs on bob's machine" \
    "; back with the group" || return 1
  record handover_seen_by_carol "$(since "$t0")"
  moved=$(newest 'the room moved to the relay at [0-9.]+:[0-9]+; back with the group')
  BOB_ADDR=${moved#the room moved to the relay at }; BOB_ADDR=${BOB_ADDR%%;*}
  FORBID=disconnected wait_screen bob 10 "ann left the room" "the room now runs on your machine" || return 1
  [[ -n $BOB_ADDR && $BOB_ADDR != "$ANN_ADDR" ]] ||
    fail carol "the room did not move off ann's relay ($ANN_ADDR → '$BOB_ADDR')" || return 1
  # ann's process ended normally, and her terminal says where the room went on.
  wait_screen ann 15 "[exited 0]" || return 1
  grep -qF "The room goes on on bob's machine" "$RUN_DIR/ann.err" ||
    fail ann "ann's stderr does not say the room goes on on bob's machine" || return 1
  grep -qF "cowatch://movie-night@$BOB_ADDR/" "$RUN_DIR/ann.err" ||
    fail ann "ann's parting link does not name $BOB_ADDR" || return 1
  # bob and carol keep playing, together: carol pauses, bob reads it; bob plays, carol reads it.
  FORBID=disconnected wait_all "bob carol" 10 "S1E3 · Three Short, One Long" "▶ playing" "People (2)" || return 1
  tm send-keys -t =fn-carol: Space
  FORBID=disconnected wait_screen bob 10 "carol paused at" "⏸ paused by carol" || return 1
  tm send-keys -t =fn-bob: Space
  FORBID=disconnected wait_screen carol 10 "bob played from" "▶ playing" || return 1
  # bob's `i`: the link now names bob's relay, and carol (next host) after /next=.
  read_invite bob || return 1
  [[ $LINK == "cowatch://movie-night@$BOB_ADDR/fp="* ]] ||
    fail bob "bob's invite names '${LINK%%/fp=*}', not bob's relay $BOB_ADDR" || return 1
  local next=${LINK#*/next=}
  [[ $LINK == */next=* && $next != *,* ]] ||
    fail bob "bob's invite does not name exactly one next machine (carol's): '$LINK'" || return 1
  CAROL_ADDR=${next%%=*}
  SCREEN=$(screen bob)
  grep -A1 -E '● carol ' <<<"$SCREEN" | grep -q "next host" ||
    fail bob "carol is not marked next host on bob's screen" || return 1
}

step8() {
  local t0 bobpid carolpid
  bobpid=$(pid_of bob)
  [[ -n $bobpid ]] || fail bob "bob's cowatch process not found" || return 1
  t0=$(now_ns); kill -9 "$bobpid"
  # carol's own machine takes the room over: her relay, her place, still playing; never
  # "disconnected" (FORBID).
  FORBID=disconnected wait_screen carol 30 \
    "the room moved to the relay at $CAROL_ADDR; back with the group" || return 1
  record kill_to_carol_going_on "$(since "$t0")"
  [[ -n ${FN_DEBUG:-} ]] && { echo "      carol's screen as the room goes on:" >&2; sed 's/^/      | /' <<<"$SCREEN" >&2; }
  wait_for bob "[exited 137]" 5 || return 1
  # bob is let go of (his place freed, the room carol's): until then he is listed as
  # reconnecting, still ★ owner.
  FORBID=disconnected wait_screen carol 15 "you now own the room (bob left)" "People (1)" \
    "▶ playing" "● connected" || return 1
  record kill_to_bob_left "$(since "$t0")"
  # …and stays so for a moment (no late "disconnected").
  sleep 2
  FORBID=disconnected wait_screen carol 1 "▶ playing" || return 1
  # Her machine indeed: her cowatch process listens at the address the room moved to.
  carolpid=$(pid_of carol)
  if command -v ss >/dev/null && [[ -n $carolpid ]]; then
    ss -ltnpH 2>/dev/null | grep -F "pid=$carolpid," | grep -qE "[:.]${CAROL_ADDR##*:}\b" ||
      fail carol "carol's process ($carolpid) does not listen on ${CAROL_ADDR##*:}" || return 1
  fi
  # dave comes late, with the link carol's `i` shows.
  read_invite carol || return 1
  [[ $LINK == "cowatch://movie-night@$CAROL_ADDR/fp="* ]] ||
    fail carol "carol's invite names '${LINK%%/fp=*}', not her relay $CAROL_ADDR" || return 1
  t0=$(now_ns); start dave join "$LINK" --name dave
  wait_for dave "People (2)" 20 || return 1
  record join_dave "$(since "$t0")"
  wait_screen dave 10 "Watch together?" "S1E3 · Three Short, One Long" || return 1
  [[ -n ${FN_DEBUG:-} ]] && { echo "      dave's screen on arrival:" >&2; sed 's/^/      | /' <<<"$SCREEN" >&2; }
  wait_screen carol 10 "People (2)" "dave entered the room" || return 1
  tm send-keys -t =fn-dave: j
  wait_screen dave 15 "▶ playing" "S1E3 · Three Short, One Long" || return 1
  wait_screen carol 10 "dave joined" || return 1
}

# ---------------------------------------------------------------- runs

declare -A PASSED=()
ALL_OK=0
echo "first night: $RUNS run(s) · $COWATCH · tmux -S $SOCKET · $(date '+%F %T')"
for run in $(seq 1 "$RUNS"); do
  RUN_DIR=$TOP/run$run; mkdir -p "$RUN_DIR"
  T=(); HOST_LINK=""; ANN_ADDR=""; BOB_ADDR=""; CAROL_ADDR=""; LINK=""
  run_t0=$(now_ns)
  echo "run $run/$RUNS"
  ok=1
  for s in 1 2 3 4 5 6 7 8; do
    if ((ok)); then
      step_t0=$(now_ns)
      if "step$s"; then
        PASSED[$s]=$(( ${PASSED[$s]:-0} + 1 ))
        printf '  %d ✓ %s (%ss)\n' "$s" "${STEP_TITLES[$s]}" "$(since "$step_t0")"
      else
        ok=0
        printf '  %d ✗ FAILED: %s\n' "$s" "${STEP_TITLES[$s]}"
      fi
    else
      printf '  %d - not reached\n' "$s"
    fi
  done
  run_s=$(since "$run_t0"); echo "$run_s" >>"$TOP/timing.run_seconds"
  times=""; for k in join_bob join_carol ready_after_last_answer pause_seen_by_carol handover_seen_by_carol kill_to_carol_going_on kill_to_bob_left join_dave; do
    [[ -n ${T[$k]:-} ]] && times+=" $k=${T[$k]}s"
  done
  if ((ok)); then ALL_OK=$((ALL_OK + 1)); echo "  run $run: PASS in ${run_s}s ·$times"
  else echo "  run $run: FAIL after ${run_s}s ·$times"; fi
  end_sessions
  rm -rf "$RUN_DIR"
done

echo
echo "per step (runs that passed it, of $RUNS):"
for s in 1 2 3 4 5 6 7 8; do printf '  %d  %2d/%d  %s\n' "$s" "${PASSED[$s]:-0}" "$RUNS" "${STEP_TITLES[$s]}"; done
echo "timings, seconds (min / median / max, over the runs that got there):"
for k in join_bob join_carol ready_after_last_answer pause_seen_by_carol handover_seen_by_carol kill_to_carol_going_on kill_to_bob_left join_dave run_seconds; do
  f=$TOP/timing.$k
  [[ -s $f ]] || continue
  sort -n "$f" | awk -v k="$k" '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "  %-24s %6.2f / %6.2f / %6.2f  (n=%d)\n", k, v[1], m, v[NR], NR }'
done
echo
if (( ALL_OK == RUNS )); then
  echo "$RUNS of $RUNS runs: every step as expected"
  exit 0
fi
echo "$ALL_OK of $RUNS runs: every step as expected ($(( RUNS - ALL_OK )) failed)"
exit 1
