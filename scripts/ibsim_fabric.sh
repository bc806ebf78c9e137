# shellcheck shell=bash
# A simulated InfiniBand fabric for tests and the demo: ibsim simulates the
# fabric, OpenSM routes it, and the real infiniband-diags tools query it through
# the libumad2sim.so preload. Source this file, then:
#
#   ibsim_start NETFILE WORKDIR      start ibsim on a private socket, wait until it serves
#   ibsim_route ENGINE [ARGS...]     one OpenSM sweep with that routing engine; fails
#                                    unless osm.log shows ENGINE really configured the LFTs
#   ibsim_run CMD [ARGS...]          run a command against the simulated fabric
#   ibsim_stop                       stop ibsim (also runs on EXIT)
#
# Every wait is bounded. ibsim never outlives the shell that started it: ibsim_stop
# runs on EXIT, and a watchdog kills ibsim if that shell dies without running it
# (SIGKILL from a test timeout) or after IBSIM_MAX_SECONDS (default 1800).
# Writes WORKDIR/ibsim.log, WORKDIR/osm.log, WORKDIR/opensm.out; OpenSM's cache
# files (guid2lid, ...) also go to WORKDIR.

IBSIM_UMAD2SIM=${IBSIM_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
IBSIM_MAX_SECONDS=${IBSIM_MAX_SECONDS:-1800}
IBSIM_START_TIMEOUT=${IBSIM_START_TIMEOUT:-60}
IBSIM_OPENSM_TIMEOUT=${IBSIM_OPENSM_TIMEOUT:-240}
IBSIM_PID=
IBSIM_WATCHDOG_PID=
IBSIM_WORKDIR=

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
  # -n: no console. With a console on /dev/null ibsim spins on EOF at 100% CPU.
  # shellcheck disable=SC2086
  ibsim -n -s $limits "$netfile" >"$IBSIM_WORKDIR/ibsim.log" 2>&1 </dev/null &
  IBSIM_PID=$!
  _ibsim_start_watchdog
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

# Kills ibsim when the starting shell is gone or the time cap is reached. It
# polls once a second: cheap, and needs nothing the shell cannot do.
_ibsim_start_watchdog() {
  local parent=$$ ibsim=$IBSIM_PID cap=$IBSIM_MAX_SECONDS
  (
    trap - EXIT
    elapsed=0
    while kill -0 "$parent" 2>/dev/null && kill -0 "$ibsim" 2>/dev/null && [ "$elapsed" -lt "$cap" ]; do
      sleep 1
      elapsed=$((elapsed + 1))
    done
    kill "$ibsim" 2>/dev/null
  ) >/dev/null 2>&1 </dev/null &
  IBSIM_WATCHDOG_PID=$!
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
ibsim_stop() {
  if [ -n "$IBSIM_PID" ]; then
    kill "$IBSIM_PID" 2>/dev/null || true
    local i
    for i in $(seq 50); do
      kill -0 "$IBSIM_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$IBSIM_PID" 2>/dev/null || true
    wait "$IBSIM_PID" 2>/dev/null || true
    IBSIM_PID=
  fi
  if [ -n "$IBSIM_WATCHDOG_PID" ]; then
    kill "$IBSIM_WATCHDOG_PID" 2>/dev/null || true
    wait "$IBSIM_WATCHDOG_PID" 2>/dev/null || true
    IBSIM_WATCHDOG_PID=
  fi
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
  local used
  used=$(ibsim_engine_used "$log")
  if [ "$used" != "$engine" ]; then
    _ibsim_fail "OpenSM did not route with $engine but with '${used:-nothing}'; its complaints:"$'\n'"$(grep -E ' 0x01 ' "$log" | tail -n 5)"
    return 1
  fi
  echo "ibsim_fabric: OpenSM routed the fabric with $used (see $log)" >&2
}
