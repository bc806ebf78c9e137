# shellcheck shell=bash
# Canopy's long-running processes in the background, for the e2e tests and the
# demo: the collector (canopy-collect --watch) and the query service (canopyd).
# Source scripts/ibsim_fabric.sh first: the collector reaches the simulated
# fabric through its preload, and both are tied to this shell with
# ibsim_watchdog, so they never outlive it. Every wait is bounded
# (CANOPY_WAIT_TIMEOUT seconds, default 60).
#
#   canopy_wait_until SECONDS WHAT CMD...      run CMD every 0.1 s until it succeeds; fail after SECONDS
#   canopy_dump_count OUT                      how many dumps OUT holds
#   canopy_dumps_above OUT N                   true when OUT holds more than N dumps
#   collector_spawn COLLECT OUT LOG [ARGS...]  canopy-collect --watch --out OUT ARGS... in the background,
#                                              its info log in LOG, its stdout in LOG.out (COLLECTOR_PID)
#   collector_start COLLECT OUT LOG [ARGS...]  the same, then waits for the first dump
#   collector_count WORD                       lines of the collector's log with WORD (published, unchanged, ...)
#   collector_stop                             SIGTERM; fails unless it exits 0 within 10 s leaving no .incoming-*
#   canopyd_start CANOPYD DUMPDIR LOG          canopyd on 127.0.0.1 at a port the kernel picks
#                                              (CANOPYD_PORT); waits until it serves a fabric
#   canopyd_ask REQUEST...                     one connection; one answer line per request
#   canopyd_snapshot                           the snapshot generation `info` reports
#   canopyd_stop

CANOPY_WAIT_TIMEOUT=${CANOPY_WAIT_TIMEOUT:-60}
CANOPY_CLIENT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/canopyd_client.py
COLLECTOR_PID= COLLECTOR_OUT= COLLECTOR_LOG=
CANOPYD_PID= CANOPYD_PORT= CANOPYD_LOG=

_canopy_fail() {
  echo "canopy_services: error: $*" >&2
  return 1
}

canopy_wait_until() {
  local limit=$1 what=$2 waited=0
  shift 2
  until "$@"; do
    if [ "$waited" -ge $((limit * 10)) ]; then
      _canopy_fail "$what: not within ${limit}s"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

canopy_dump_count() { find "$1" -maxdepth 1 -name 'dump-*' -type d 2>/dev/null | wc -l; }
# canopy_dumps_above OUT N: OUT holds more than N dumps (for canopy_wait_until).
canopy_dumps_above() { [ "$(canopy_dump_count "$1")" -gt "$2" ]; }

_canopy_alive() { kill -0 "$1" 2>/dev/null; }
# Done waiting: a first dump is there, or the collector is gone.
_canopy_first_dump() { [ -L "$COLLECTOR_OUT/current" ] || ! _canopy_alive "$COLLECTOR_PID"; }

# Sends SIGTERM to PID, waits up to 10 s (then SIGKILL); its exit status goes
# to _CANOPY_RC. Not in a $(...) subshell: only this shell can reap its child.
_canopy_terminate() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 100); do
    _canopy_alive "$pid" || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  _CANOPY_RC=0
  wait "$pid" 2>/dev/null || _CANOPY_RC=$?
}

collector_spawn() {
  local collect=$1 out=$2 log=$3
  [ -n "$log" ] || { _canopy_fail "usage: collector_spawn COLLECT OUT LOG [ARGS...]"; return 1; }
  [ -z "$COLLECTOR_PID" ] || { _canopy_fail "a collector is already running (pid $COLLECTOR_PID)"; return 1; }
  shift 3
  COLLECTOR_OUT=$out COLLECTOR_LOG=$log
  # A plain command with its environment (not ibsim_run, a function: `&` would
  # fork a shell), so that $! is the collector itself and SIGTERM reaches it.
  CANOPY_LOG_LEVEL=info LD_PRELOAD=$IBSIM_UMAD2SIM "$collect" --watch --out "$out" "$@" >"$log.out" 2>"$log" &
  COLLECTOR_PID=$!
  ibsim_watchdog "$COLLECTOR_PID"
}

collector_start() {
  collector_spawn "$@" || return 1
  local log=$3
  if ! canopy_wait_until "$CANOPY_WAIT_TIMEOUT" "the collector's first dump in $COLLECTOR_OUT" _canopy_first_dump ||
    ! _canopy_alive "$COLLECTOR_PID"; then
    _canopy_fail "no first dump from the collector; its log ends:"$'\n'"$(tail -n 5 "$log")"
    return 1
  fi
}

collector_count() { grep -c -- "$1" "$COLLECTOR_LOG" || true; }

collector_stop() {
  [ -n "$COLLECTOR_PID" ] || return 0
  _canopy_terminate "$COLLECTOR_PID"
  COLLECTOR_PID=
  [ "$_CANOPY_RC" = 0 ] ||
    { _canopy_fail "the collector exited with status $_CANOPY_RC on SIGTERM (see $COLLECTOR_LOG)"; return 1; }
  if [ -n "$(find "$COLLECTOR_OUT" -maxdepth 1 -name '.incoming-*')" ]; then
    _canopy_fail "the collector left an incoming directory in $COLLECTOR_OUT"
    return 1
  fi
}

# Done waiting: canopyd logged "listening on 127.0.0.1:PORT" (CANOPYD_PORT), or it is gone.
_canopyd_listening() {
  CANOPYD_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$CANOPYD_LOG" | head -n 1)
  [ -n "$CANOPYD_PORT" ] || ! _canopy_alive "$CANOPYD_PID"
}

_canopyd_serving() { [ "$(canopyd_snapshot 2>/dev/null)" -ge 1 ] 2>/dev/null; }

canopyd_start() {
  local canopyd=$1 dump_dir=$2
  CANOPYD_LOG=$3
  [ -n "$CANOPYD_LOG" ] || { _canopy_fail "usage: canopyd_start CANOPYD DUMPDIR LOG"; return 1; }
  [ -z "$CANOPYD_PID" ] || { _canopy_fail "canopyd is already running (pid $CANOPYD_PID)"; return 1; }
  # Port 0: the kernel picks a free one, so parallel tests never collide.
  CANOPY_LOG_LEVEL=info "$canopyd" --dump-dir "$dump_dir" --listen 127.0.0.1:0 2>"$CANOPYD_LOG" &
  CANOPYD_PID=$!
  ibsim_watchdog "$CANOPYD_PID"
  if ! canopy_wait_until "$CANOPY_WAIT_TIMEOUT" "canopyd listening" _canopyd_listening ||
    ! _canopy_alive "$CANOPYD_PID" ||
    ! canopy_wait_until "$CANOPY_WAIT_TIMEOUT" "canopyd serving a fabric" _canopyd_serving; then
    _canopy_fail "canopyd did not start serving; its log ends:"$'\n'"$(tail -n 5 "$CANOPYD_LOG")"
    canopyd_stop || true
    return 1
  fi
}

canopyd_ask() { python3 "$CANOPY_CLIENT" --port "$CANOPYD_PORT" ask "$@"; }

canopyd_snapshot() { canopyd_ask info | sed -n 's/.* snapshot=\([0-9][0-9]*\).*/\1/p'; }

canopyd_stop() {
  [ -n "$CANOPYD_PID" ] || return 0
  _canopy_terminate "$CANOPYD_PID"
  CANOPYD_PID=
  [ "$_CANOPY_RC" = 0 ] || { _canopy_fail "canopyd exited with status $_CANOPY_RC on SIGTERM (see $CANOPYD_LOG)"; return 1; }
}
