#!/usr/bin/env bash
# canopy-collect --watch against a fabric that changes. ibsim simulates a
# two-level fat tree, OpenSM runs as a daemon, and the collector follows its log:
#   1. the collector publishes a first dump when it starts;
#   2. a heavy sweep that changes nothing (SIGHUP) publishes nothing and is
#      logged "unchanged", also after OpenSM's log was rotated (renamed, then
#      reopened on SIGUSR1) and after it was truncated in place;
#   3. breaking the uplink that a leaf's route uses makes OpenSM re-route, and
#      exactly one new dump appears: the cable is gone from it, and its routes
#      (its own tables, and `canopy route` on it) avoid the cable and equal ibtracert;
#   4. SIGTERM stops the collector: exit status 0, no .incoming-* left.
#
# usage: watch_e2e.sh --work DIR --collect PATH --canopy PATH
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
settle=1
e2e_options "work collect canopy" "$@"

# shellcheck source=watch_checks.sh
source "$here/watch_checks.sh"

e2e_small_fabric --expect "$work/expect.json"
out=$work/dumps
trap 'collector_stop || true; ibsim_stop' EXIT
osm_log=$IBSIM_WORKDIR/osm.log

step "OpenSM daemon (ftree), collector following $osm_log"
ibsim_opensm_start ftree
collector_start "$collect" "$out" "$work/watch.log" --opensm-log "$osm_log" --settle "$settle"
expect_eq "$(canopy_dump_count "$out")" 1 "dumps after the start"
step_done first-dump

step "a heavy sweep that changes nothing"
expect_unchanged_sweep "a plain sweep"
step_done unchanged-sweep

step "OpenSM's log rotated (renamed, reopened on SIGUSR1), then a sweep"
mv "$osm_log" "$osm_log.1"
kill -USR1 "$IBSIM_OPENSM_PID"
canopy_wait_until 10 "OpenSM reopening its log" test -e "$osm_log"
expect_unchanged_sweep "a sweep logged to the rotated log"
grep -q "is a new file" "$work/watch.log" || fail "the collector did not notice the new log file"
step_done rotated-log

step "OpenSM's log truncated in place, then a sweep"
: >"$osm_log"
# A truncation is seen by the file getting shorter than what was read: let the
# collector see it before the sweep writes the file longer again.
canopy_wait_until 10 "the collector noticing the truncation" grep -q "was truncated" "$work/watch.log"
expect_unchanged_sweep "a sweep logged to the truncated log"
step_done truncated-log

step "break the uplink of the route from the first host to the last"
read -r leaf port _ < <(first_uplink "$out/current")
echo "breaking $leaf port $port"
expect_one_more_dump "$settle" ibsim_unlink "$leaf" "$port"
echo "OpenSM re-routed with $(ibsim_engine_used) (ftree rejects the fabric once a cable is missing)"
step_done rerouted

step "the new dump: the cable is gone, routes avoid it and equal ibtracert"
expect_unlinked "$out/current" "$leaf" "$port"
compare=(python3 "$here/compare_routes.py" --dump "$out/current" --pairs 30 --seed 3
         --preload "$IBSIM_UMAD2SIM" --expected ibtracert --avoid "$leaf:$port" --expect "$work/expect.json")
"${compare[@]}" --actual lft-walk
"${compare[@]}" --actual canopy --canopy "$canopy"
step_done compare

step "SIGTERM stops the collector cleanly"
collector_stop
grep -q "stopping (signal received)" "$work/watch.log" || fail "no 'stopping' line in the collector's log"
step_done stop
ibsim_stop
trap - EXIT
echo "timings: ${timings[*]/%/;}"
echo PASS
