#!/usr/bin/env bash
# The service end to end on a fabric that changes: ibsim simulates a two-level
# fat tree, OpenSM runs as a daemon, canopy-collect --watch follows its log into
# OUT, and canopyd serves OUT on a free loopback port.
#   1. canopyd's `query A:B` answers equal ibtracert for a sample of host pairs;
#   2. a connection is opened and asks `info`;
#   3. the uplink that the first host's route to the last one leaves its leaf by
#      is broken: OpenSM re-routes, the collector publishes exactly one new dump,
#      and canopyd's snapshot generation increases (bounded wait);
#   4. the answers now equal the new ibtracert routes and avoid the cable, and
#      the connection opened before the change is still open and answers from
#      the new snapshot (its route for that pair changed).
#
# usage: service_e2e.sh --work DIR --collect PATH --canopyd PATH
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
settle=1
e2e_options "work collect canopyd" "$@"

# shellcheck source=watch_checks.sh
source "$here/watch_checks.sh"

e2e_small_fabric
out=$work/dumps
trap 'canopyd_stop || true; collector_stop || true; ibsim_stop' EXIT

step "OpenSM daemon, collector, canopyd"
ibsim_opensm_start ftree
collector_start "$collect" "$out" "$work/watch.log" --opensm-log "$IBSIM_WORKDIR/osm.log" --settle "$settle"
canopyd_start "$canopyd" "$out" "$work/canopyd.log"
echo "canopyd on 127.0.0.1:$CANOPYD_PORT: $(canopyd_ask info)"
step_done start

compare=(python3 "$here/compare_routes.py" --pairs 30 --seed 5 --preload "$IBSIM_UMAD2SIM"
         --expected ibtracert --actual canopyd --server "127.0.0.1:$CANOPYD_PORT")
step "canopyd's query A:B vs ibtracert"
"${compare[@]}" --dump "$out/current"
step_done compare-before

read -r leaf port first last < <(first_uplink "$out/current")
pair="query $first:$last"
route_before=$(canopyd_ask "$pair")
generation=$(canopyd_snapshot)

step "a connection opened before the change"
python3 "$CANOPY_CLIENT" --port "$CANOPYD_PORT" hold --until "$work/go" info "$pair" >"$work/held.txt" 2>&1 &
held=$!
ibsim_watchdog "$held"
canopy_wait_until 10 "the held connection's first answer" test -s "$work/held.txt"
echo "held connection: $(head -n 1 "$work/held.txt")"
step_done connect

step "break $leaf port $port (on the route $route_before)"
expect_one_more_dump "$settle" ibsim_unlink "$leaf" "$port"
_generation_above() { [ "$(canopyd_snapshot)" -gt "$1" ] 2>/dev/null; }
canopy_wait_until 60 "canopyd loading the new dump" _generation_above "$generation" || fail "see $work/canopyd.log"
echo "canopyd: $(canopyd_ask info)"
step_done reload

step "canopyd's answers after the change vs ibtracert, avoiding the cable"
"${compare[@]}" --dump "$out/current" --avoid "$leaf:$port"
route_after=$(canopyd_ask "$pair")
[ "$route_after" != "$route_before" ] || fail "$pair still answers $route_before"
echo "ok: $pair: $route_before -> $route_after"
step_done compare-after

step "the connection opened before the change"
touch "$work/go"
rc=0
wait "$held" || rc=$?
cat "$work/held.txt"
expect_eq "$rc" 0 "the held connection's client exit status"
held_generation() { sed -n "$1s/.* snapshot=\([0-9][0-9]*\).*/\1/p" "$work/held.txt"; }
expect_eq "$(held_generation 1)" "$generation" "the held connection's snapshot before the change"
[ "$(held_generation 2)" -gt "$generation" ] || fail "the held connection still answers from snapshot $generation"
expect_eq "$(sed -n 3p "$work/held.txt")" "$route_after" "the held connection's answer to $pair"
step_done held-connection

canopyd_stop
collector_stop
ibsim_stop
trap - EXIT
echo "timings: ${timings[*]/%/;}"
echo PASS
