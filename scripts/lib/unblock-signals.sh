# Sourced first by the scripts that run processes in network namespaces, with "$0" "$@":
# started by a test runner, a shell may inherit blocked signals (SIGCHLD, SIGTERM, …); then
# `wait` hangs and the processes it starts ignore SIGTERM. It starts the script again with
# none blocked.
if [[ -z "${COWATCH_SIGNALS_UNBLOCKED:-}" ]] && grep -q '^SigBlk:.*[1-9a-f]' /proc/$$/status; then
  export COWATCH_SIGNALS_UNBLOCKED=1
  exec python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_SETMASK, [])
os.execvp("bash", ["bash"] + sys.argv[1:])' "$@"
fi
