# shellcheck shell=bash
# A simulated InfiniBand fabric for tests and the demo: ibsim simulates the
# fabric, OpenSM routes it, and the real infiniband-diags tools query it through
# the libumad2sim.so preload. Source this file, then:
#
#   ibsim_start NETFILE WORKDIR      start ibsim on a private socket, wait until it serves
#   ibsim_route ENGINE [ARGS...]     one OpenSM sweep with that routing engine; fails
#                                    unless osm.log shows ENGINE really configured the LFTs
#   ibsim_run CMD [ARGS...]          run a command against the simulated fabric
#   ibsim_watchdog PID               kill background process PID if this shell dies first
#   ibsim_cmd 'COMMAND'              an ibsim console command (unlink, link, ...); prints its answer
#   ibsim_unlink NODE PORT           break the cable at NODE's PORT (both ends go down)
#   ibsim_opensm_start ENGINE [ARGS...]  OpenSM as a daemon: routes now, re-routes on every change
#   ibsim_sweeps                     heavy sweeps the daemon has completed ("SUBNET UP" lines)
#   ibsim_wait_sweep N               wait until more than N heavy sweeps have completed
#   ibsim_opensm_resweep             make the daemon heavy-sweep now (SIGHUP) and wait for it
#   ibsim_opensm_stop                stop the daemon
#   ibsim_stop                       stop the daemon and ibsim (also runs on EXIT)
#
# Every wait is bounded. ibsim and OpenSM never outlive the shell that started
# them: ibsim_stop runs on EXIT, and a watchdog kills each if that shell dies
# without running it (SIGKILL from a test timeout) or after IBSIM_MAX_SECONDS
# (default 1800). Writes WORKDIR/ibsim.log (ibsim's console output),
# WORKDIR/ibsim.cmd (its console FIFO), WORKDIR/osm.log, WORKDIR/opensm.out;
# OpenSM's cache files (guid2lid, ...) also go to WORKDIR.

IBSIM_UMAD2SIM=${IBSIM_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
IBSIM_MAX_SECONDS=${IBSIM_MAX_SECONDS:-1800}
IBSIM_START_TIMEOUT=${IBSIM_START_TIMEOUT:-60}
IBSIM_OPENSM_TIMEOUT=${IBSIM_OPENSM_TIMEOUT:-240}
IBSIM_CMD_TIMEOUT=${IBSIM_CMD_TIMEOUT:-10}
IBSIM_SWEEP_INTERVAL=${IBSIM_SWEEP_INTERVAL:-10}
IBSIM_PID=
IBSIM_WATCHDOG_PID=
IBSIM_OPENSM_PID=
IBSIM_OPENSM_WATCHDOG_PID=
IBSIM_WORKDIR=
IBSIM_CMD_FIFO=

_ibsim_fail() {
  echo "ibsim_fabric: error: $*" >&2
  return 1
}

# The socket is an abstract unix socket "<name>:ctl"; /proc/net/unix lists it as "@<name>:ctl".
_ibsim_serving() {
  grep -q "@${IBSIM_SOCKNAME}:ctl@*\$" /proc/net/unix 2>/dev/null
}

# ibsim's static limits (2048 nodes, 256 switches, 13312 ports by default) are
# raised to fit the net file, with room to spare.
_ibsim_limit_args() {
  awk '
    /^Switch/ { s++; n++; p += $2 + 1 }
    /^(Hca|Ca)/ { n++; p += $2 + 1 }
    END {
      printf "-N %d -S %d -P %d\n", (2*n > 2048 ? 2*n : 2048), (2*s > 256 ? 2*s : 256), (2*p > 13312 ? 2*p : 13312)
    }' "$1"
}

ibsim_start() {
  local netfile=$1 workdir=$2
  [ -n "$netfile" ] && [ -n "$workdir" ] || { _ibsim_fail "usage: ibsim_start NETFILE WORKDIR"; return 1; }
  [ -r "$netfile" ] || { _ibsim_fail "cannot read net file $netfile"; return 1; }
  [ -z "$IBSIM_PID" ] || { _ibsim_fail "ibsim already running (pid $IBSIM_PID)"; return 1; }
  [ -r "$IBSIM_UMAD2SIM" ] || { _ibsim_fail "$IBSIM_UMAD2SIM not found (install ibsim-utils)"; return 1; }
  command -v ibsim >/dev/null || { _ibsim_fail "ibsim not found (install ibsim-utils)"; return 1; }
  mkdir -p "$workdir" || return 1
  IBSIM_WORKDIR=$(cd "$workdir" && pwd)
  # A private socket name per run, so parallel tests never talk to each other's fabric.
  export IBSIM_SOCKNAME="canopy-$$-${RANDOM}${RANDOM}"
  export OSM_TMP_DIR=$IBSIM_WORKDIR OSM_CACHE_DIR=$IBSIM_WORKDIR

  local limits
  limits=$(_ibsim_limit_args "$netfile")
  # The console reads a FIFO that ibsim itself holds open for writing too
  # (0<>): ibsim_cmd writes commands into it, and ibsim never reads end-of-file.
  # (With its console on /dev/null ibsim spins on EOF at 100% CPU; -n leaves no console.)
  IBSIM_CMD_FIFO=$IBSIM_WORKDIR/ibsim.cmd
  rm -f "$IBSIM_CMD_FIFO"
  mkfifo "$IBSIM_CMD_FIFO" || { _ibsim_fail "cannot create the console FIFO $IBSIM_CMD_FIFO"; return 1; }
  # shellcheck disable=SC2086
  ibsim -s $limits "$netfile" >"$IBSIM_WORKDIR/ibsim.log" 2>&1 0<>"$IBSIM_CMD_FIFO" &
  IBSIM_PID=$!
  _ibsim_start_watchdog "$IBSIM_PID" IBSIM_WATCHDOG_PID
  _ibsim_add_exit_trap

  local waited=0
  until _ibsim_serving; do
    if ! kill -0 "$IBSIM_PID" 2>/dev/null; then
      local log
      log=$(grep -v 'cannot parse remote lid' "$IBSIM_WORKDIR/ibsim.log" | tail -n 5)
      IBSIM_PID=
      _ibsim_fail "ibsim exited while loading $netfile:"$'\n'"$log"
      return 1
    fi
    if [ "$waited" -ge $((IBSIM_START_TIMEOUT * 10)) ]; then
      ibsim_stop
      _ibsim_fail "ibsim did not open its socket within ${IBSIM_START_TIMEOUT}s (see $IBSIM_WORKDIR/ibsim.log)"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# _ibsim_start_watchdog PID VAR: kills PID when the starting shell is gone or
# the time cap is reached (SIGTERM, then SIGKILL 2 s later: OpenSM can hang on
# its way out once ibsim is gone), and stores the watchdog's pid in VAR. It
# polls once a second: cheap, and needs nothing the shell cannot do.
_ibsim_start_watchdog() {
  local parent=$$ target=$1 cap=$IBSIM_MAX_SECONDS
  (
    trap - EXIT
    elapsed=0
    while kill -0 "$parent" 2>/dev/null && kill -0 "$target" 2>/dev/null && [ "$elapsed" -lt "$cap" ]; do
      sleep 1
      elapsed=$((elapsed + 1))
    done
    kill "$target" 2>/dev/null && sleep 2 && kill -9 "$target" 2>/dev/null
  ) >/dev/null 2>&1 </dev/null &
  printf -v "$2" '%s' "$!"
}

# ibsim_watchdog PID: ties a background process of the caller (a collector, a
# server) to this shell as ibsim is: it is killed if the shell dies without
# stopping it, or after IBSIM_MAX_SECONDS. The watchdog ends when PID does.
ibsim_watchdog() {
  [ -n "$1" ] || { _ibsim_fail "usage: ibsim_watchdog PID"; return 1; }
  local ignored
  _ibsim_start_watchdog "$1" ignored
}

# Stops PID (SIGTERM, SIGKILL after 5 s) and then its watchdog WATCHDOG_PID.
_ibsim_kill() {
  local pid=$1 watchdog=$2 i
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for i in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$watchdog" ]; then
    kill "$watchdog" 2>/dev/null || true
    wait "$watchdog" 2>/dev/null || true
  fi
  return 0
}

# Adds ibsim_stop to whatever EXIT trap the caller already has.
_ibsim_add_exit_trap() {
  local current
  current=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
  case "$current" in *ibsim_stop*) return ;; esac
  # shellcheck disable=SC2064
  trap "ibsim_stop; ${current:-:}" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# Safe under `set -e`: every step may fail harmlessly (the process may be gone).
# OpenSM goes first: once ibsim is gone it can hang on its way out.
ibsim_stop() {
  ibsim_opensm_stop
  _ibsim_kill "$IBSIM_PID" "$IBSIM_WATCHDOG_PID"
  IBSIM_PID= IBSIM_WATCHDOG_PID=
  return 0
}

ibsim_run() {
  [ -n "$IBSIM_PID" ] || { _ibsim_fail "ibsim_run: no fabric (call ibsim_start first)"; return 1; }
  LD_PRELOAD=$IBSIM_UMAD2SIM "$@"
}

# The engine OpenSM really used: "<engine> tables configured on all switches".
# OpenSM logs a failing engine's error and then silently configures minhop.
ibsim_engine_used() {
  sed -n 's/.*osm_ucast_mgr_process: \([A-Za-z0-9_-]*\) tables configured on all switches.*/\1/p' \
    "${1:-$IBSIM_WORKDIR/osm.log}" | tail -n 1
}

ibsim_route() {
  local engine=$1
  [ -n "$engine" ] || { _ibsim_fail "usage: ibsim_route ENGINE [OPENSM ARGS...]"; return 1; }
  shift
  [ -n "$IBSIM_PID" ] || { _ibsim_fail "ibsim_route: no fabric (call ibsim_start first)"; return 1; }
  local log=$IBSIM_WORKDIR/osm.log rc=0
  rm -f "$log"
  # -o: one sweep, then exit; the LFTs stay programmed in the simulated switches.
  timeout "$IBSIM_OPENSM_TIMEOUT" env LD_PRELOAD="$IBSIM_UMAD2SIM" \
    opensm -o -f "$log" -R "$engine" "$@" >"$IBSIM_WORKDIR/opensm.out" 2>&1 </dev/null || rc=$?
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 124 ] && _ibsim_fail "opensm did not finish its sweep within ${IBSIM_OPENSM_TIMEOUT}s"
    _ibsim_fail "opensm failed (exit $rc): $(tail -n 3 "$IBSIM_WORKDIR/opensm.out")"
    return 1
  fi
  _ibsim_check_engine "$engine" "$log"
}

# Fails loudly unless OpenSM's last routing in LOG used ENGINE.
_ibsim_check_engine() {
  local engine=$1 log=$2 used
  used=$(ibsim_engine_used "$log")
  if [ "$used" != "$engine" ]; then
    _ibsim_fail "OpenSM did not route with $engine but with '${used:-nothing}'; its complaints:"$'\n'"$(grep -E ' 0x01 ' "$log" | tail -n 5)"
    return 1
  fi
  echo "ibsim_fabric: OpenSM routed the fabric with $used (see $log)" >&2
}

# ---- changing the fabric while it runs --------------------------------------

# What ibsim answers when it refuses a console command (it has no exit status).
_IBSIM_COMPLAINTS="not found|bad |can't|not linked|no (local|remote) port|unknown|must be|missing|unconfigured"

_ibsim_prompts() { grep -o 'sim> ' "$IBSIM_WORKDIR/ibsim.log" | wc -l; }

# ibsim_cmd 'COMMAND': one ibsim console command ('help' lists them; e.g.
# 'unlink "leaf001"[5]', 'link "leaf001"[5] "spine001"[1]'); prints ibsim's
# answer. ibsim ends every answer with a fresh "sim> " prompt in its console
# output (WORKDIR/ibsim.log): that is how we know it was done. Fails when no
# prompt comes within IBSIM_CMD_TIMEOUT seconds or ibsim complains.
ibsim_cmd() {
  local command=$*
  [ -n "$IBSIM_PID" ] || { _ibsim_fail "ibsim_cmd: no fabric (call ibsim_start first)"; return 1; }
  case $command in '' | *$'\n'*) _ibsim_fail "ibsim_cmd: give one command line"; return 1 ;; esac
  local log=$IBSIM_WORKDIR/ibsim.log prompts offset answer waited=0
  prompts=$(_ibsim_prompts)
  offset=$(stat -c %s "$log")
  # Opening the FIFO cannot block while ibsim holds it; the timeout covers an ibsim that is gone.
  timeout "$IBSIM_CMD_TIMEOUT" bash -c 'printf "%s\n" "$1" >"$2"' _ "$command" "$IBSIM_CMD_FIFO" ||
    { _ibsim_fail "cannot send '$command' to ibsim (is it still running?)"; return 1; }
  until [ "$(_ibsim_prompts)" -gt "$prompts" ]; do
    kill -0 "$IBSIM_PID" 2>/dev/null || { _ibsim_fail "ibsim exited after '$command'"; return 1; }
    if [ "$waited" -ge $((IBSIM_CMD_TIMEOUT * 10)) ]; then
      _ibsim_fail "ibsim did not answer '$command' within ${IBSIM_CMD_TIMEOUT}s"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  answer=$(tail -c +$((offset + 1)) "$log" | sed -e 's/sim> //g' -e '/^[[:space:]]*$/d')
  if printf '%s\n' "$answer" | grep -qE "$_IBSIM_COMPLAINTS"; then
    _ibsim_fail "ibsim refused '$command': $answer"
    return 1
  fi
  [ -z "$answer" ] || printf '%s\n' "$answer"
}

# Breaks the cable at NODE's PORT: both ends go Down and their switches send
# OpenSM a trap 128 (link state change).
ibsim_unlink() {
  [ $# -eq 2 ] || { _ibsim_fail "usage: ibsim_unlink NODE PORT"; return 1; }
  ibsim_cmd "unlink \"$1\"[$2]"
}

# Cables NODE_A's PORT_A to NODE_B's PORT_B (both must be free).
ibsim_link() {
  [ $# -eq 4 ] || { _ibsim_fail "usage: ibsim_link NODE_A PORT_A NODE_B PORT_B"; return 1; }
  ibsim_cmd "link \"$1\"[$2] \"$3\"[$4]"
}

# ---- OpenSM as a daemon -------------------------------------------------------

# ibsim_opensm_start ENGINE [OPENSM ARGS...]: OpenSM as clusters run it. It
# routes the fabric now and heavy-sweeps (re-routing) again whenever a switch
# reports a port change (ibsim sends trap 128 on unlink and link), on SIGHUP
# (ibsim_opensm_resweep), and when its light sweep, every IBSIM_SWEEP_INTERVAL
# seconds (default 10), finds a change a lost trap did not report. -d 2 flushes
# its log after every line: by default the log is stdio-buffered and a reader
# sees a sweep's "SUBNET UP" only kilobytes later. Waits for the first sweep
# (bounded, IBSIM_OPENSM_TIMEOUT), then checks ENGINE was used, as ibsim_route does.
ibsim_opensm_start() {
  local engine=$1
  [ -n "$engine" ] || { _ibsim_fail "usage: ibsim_opensm_start ENGINE [OPENSM ARGS...]"; return 1; }
  shift
  [ -n "$IBSIM_PID" ] || { _ibsim_fail "ibsim_opensm_start: no fabric (call ibsim_start first)"; return 1; }
  [ -z "$IBSIM_OPENSM_PID" ] || { _ibsim_fail "OpenSM already running (pid $IBSIM_OPENSM_PID)"; return 1; }
  local log=$IBSIM_WORKDIR/osm.log
  rm -f "$log"
  LD_PRELOAD=$IBSIM_UMAD2SIM opensm -d 2 -s "$IBSIM_SWEEP_INTERVAL" -f "$log" -R "$engine" "$@" \
    >"$IBSIM_WORKDIR/opensm.out" 2>&1 </dev/null &
  IBSIM_OPENSM_PID=$!
  _ibsim_start_watchdog "$IBSIM_OPENSM_PID" IBSIM_OPENSM_WATCHDOG_PID
  if ! ibsim_wait_sweep 0 || ! _ibsim_check_engine "$engine" "$log"; then
    ibsim_opensm_stop
    return 1
  fi
}

# Heavy sweeps completed so far: OpenSM logs "SUBNET UP" at the end of each.
ibsim_sweeps() {
  local count
  count=$(grep -c -- '-> SUBNET UP' "$IBSIM_WORKDIR/osm.log" 2>/dev/null)
  echo "${count:-0}"
}

# ibsim_wait_sweep N: waits (bounded, IBSIM_OPENSM_TIMEOUT) until more than N
# heavy sweeps have completed.
ibsim_wait_sweep() {
  local before=${1:-0} waited=0
  until [ "$(ibsim_sweeps)" -gt "$before" ]; do
    if ! kill -0 "$IBSIM_OPENSM_PID" 2>/dev/null; then
      _ibsim_fail "OpenSM exited: $(tail -n 3 "$IBSIM_WORKDIR/opensm.out")"
      return 1
    fi
    if [ "$waited" -ge $((IBSIM_OPENSM_TIMEOUT * 10)) ]; then
      _ibsim_fail "OpenSM completed no heavy sweep within ${IBSIM_OPENSM_TIMEOUT}s (see $IBSIM_WORKDIR/osm.log)"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# A heavy sweep now, with nothing changed (OpenSM re-reads its configuration
# and re-sweeps on SIGHUP); waits until it has completed.
ibsim_opensm_resweep() {
  [ -n "$IBSIM_OPENSM_PID" ] || { _ibsim_fail "ibsim_opensm_resweep: OpenSM is not running"; return 1; }
  local before
  before=$(ibsim_sweeps)
  kill -HUP "$IBSIM_OPENSM_PID"
  ibsim_wait_sweep "$before"
}

ibsim_opensm_stop() {
  _ibsim_kill "$IBSIM_OPENSM_PID" "$IBSIM_OPENSM_WATCHDOG_PID"
  IBSIM_OPENSM_PID= IBSIM_OPENSM_WATCHDOG_PID=
  return 0
}
