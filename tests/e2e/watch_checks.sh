# shellcheck shell=bash
# Checks shared by the tests that change a fabric under a running collector
# (watch_e2e.sh, service_e2e.sh). Source after e2e_lib.sh; a failed check exits the test.

_more_collector_lines() { [ "$(collector_count "$1")" -gt "$2" ]; }


# expect_unchanged_sweep WHAT: an OpenSM heavy sweep that changes nothing makes
# the collector collect, log "unchanged" and publish nothing.
expect_unchanged_sweep() {
  local what=$1 unchanged dumps
  unchanged=$(collector_count "unchanged:")
  dumps=$(canopy_dump_count "$COLLECTOR_OUT")
  ibsim_opensm_resweep
  canopy_wait_until 30 "'unchanged' in the collector's log after $what" \
    _more_collector_lines "unchanged:" "$unchanged" || fail "see $COLLECTOR_LOG"
  expect_eq "$(canopy_dump_count "$COLLECTOR_OUT")" "$dumps" "dumps after $what"
  no_incoming "$COLLECTOR_OUT" "$what"
  echo "ok: $what: $(grep "unchanged:" "$COLLECTOR_LOG" | tail -n 1 | cut -c1-120)..."
}

# expect_one_more_dump SETTLE CMD...: runs CMD (a change of the fabric); then
# the collector must publish exactly one dump, and no more: OpenSM may sweep
# again (both switches of a broken cable send a trap), but a collection of the
# same fabric publishes nothing. (Needs --keep above the dumps there are.)
expect_one_more_dump() {
  local settle=$1 before count
  shift
  before=$(readlink "$COLLECTOR_OUT/current")
  count=$(canopy_dump_count "$COLLECTOR_OUT")
  "$@"
  canopy_wait_until 60 "a new dump after: $*" canopy_dumps_above "$COLLECTOR_OUT" "$count" ||
    fail "see $COLLECTOR_LOG"
  sleep $((settle + 3))
  expect_eq "$(canopy_dump_count "$COLLECTOR_OUT")" $((count + 1)) "dumps a while after: $*"
  [ "$(readlink "$COLLECTOR_OUT/current")" != "$before" ] || fail "current still points to $before"
  echo "ok: one new dump: $(grep "published" "$COLLECTOR_LOG" | tail -n 1 | cut -c1-300)"
}

# first_uplink DUMP: "LEAF PORT FIRST LAST": the uplink that the dump's route
# from its first host (by name) to its last leaves the first leaf by.
first_uplink() {
  python3 - "$1" "$here" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from fabric_dump import load_dump, lft_walk
disc = load_dump(sys.argv[1])
hosts = disc.hosts()
hops = lft_walk(disc, hosts[0].name, hosts[-1].name)
print(hops[1].name, hops[1].out_port, hosts[0].name, hosts[-1].name)
EOF
}

# expect_unlinked DUMP NODE PORT: ibnetdiscover in the dump shows no cable at NODE's PORT.
expect_unlinked() {
  python3 - "$@" "$here" <<'EOF' || fail "the new dump still has the broken cable"
import sys
dump, name, port, here = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, here)
from fabric_dump import load_dump
node = next(n for n in load_dump(dump).nodes.values() if n.name == name)
if port in node.peers:
    sys.exit(f"{dump}: {name} port {port} is still cabled to {node.peers[port]}")
print(f"ok: {dump}: {name} port {port} has no cable")
EOF
}
