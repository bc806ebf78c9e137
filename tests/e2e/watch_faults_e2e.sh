#!/usr/bin/env bash
# canopy-collect --watch when collections fail, in polling mode (no OpenSM log),
# with ibnetdiscover behind a wrapper the test steers:
#   1. while ibnetdiscover fails, every poll logs "collection failed", nothing
#      is published, no .incoming-* stays, and the collector keeps running;
#   2. once it works again, the next poll publishes the first dump, and the
#      polls after it publish nothing ("unchanged");
#   3. SIGTERM while ibnetdiscover hangs: the collector kills it, exits 0 at
#      once and leaves no .incoming-* behind.
#
# usage: watch_faults_e2e.sh --work DIR --collect PATH
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
e2e_options "work collect" "$@"

# shellcheck source=watch_checks.sh
source "$here/watch_checks.sh"

e2e_small_fabric
out=$work/dumps
trap 'collector_stop || true; ibsim_stop' EXIT
ibsim_route ftree

# ibnetdiscover fails while $work/fail exists and hangs while $work/hang does
# (recording its pid: exec keeps it).
cat >"$work/ibnetdiscover.sh" <<EOF
#!/bin/sh
[ -e "$work/fail" ] && { echo "simulated failure" >&2; exit 1; }
[ -e "$work/hang" ] && { echo \$\$ >"$work/hang.pid"; exec sleep 300; }
exec ibnetdiscover "\$@"
EOF
chmod +x "$work/ibnetdiscover.sh"

step "ibnetdiscover fails: the collector logs it, publishes nothing and keeps polling"
touch "$work/fail"
collector_spawn "$collect" "$out" "$work/watch.log" --poll 1 --settle 0 --json \
  --ibnetdiscover "$work/ibnetdiscover.sh"
canopy_wait_until 30 "three failed collections" _more_collector_lines "collection failed" 2 || fail "see $work/watch.log"
kill -0 "$COLLECTOR_PID" || fail "the collector exited after a failed collection"
expect_eq "$(canopy_dump_count "$out")" 0 "dumps while ibnetdiscover fails"
no_incoming "$out" "a failed collection"
grep "collection failed" "$work/watch.log" | tail -n 1
step_done failures

step "ibnetdiscover works again: the next poll publishes, the later ones do not"
rm "$work/fail"
canopy_wait_until 30 "the first dump" canopy_dumps_above "$out" 0 || fail "see $work/watch.log"
canopy_wait_until 30 "an unchanged poll" _more_collector_lines "unchanged:" 0 || fail "see $work/watch.log"
expect_eq "$(canopy_dump_count "$out")" 1 "dumps after polls of an unchanged fabric"
# --json: one line per published dump, its manifest and its path.
python3 - "$work/watch.log.out" "$out/$(readlink "$out/current")" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"{len(lines)} lines on stdout, expected 1: {lines}"
printed = json.loads(lines[0])
assert printed.pop("dump") == sys.argv[2], printed
assert printed == json.load(open(sys.argv[2] + "/manifest.json")), printed
print("ok: --json printed the manifest of", sys.argv[2])
EOF
step_done recovery

step "SIGTERM while ibnetdiscover hangs"
touch "$work/hang"
canopy_wait_until 30 "a hanging ibnetdiscover" test -s "$work/hang.pid"
[ -n "$(find "$out" -maxdepth 1 -name '.incoming-*')" ] || fail "no collection in progress"
started=$(date +%s%N)
collector_stop || fail "the collector did not stop cleanly"
stop_ms=$((($(date +%s%N) - started) / 1000000))
[ "$stop_ms" -lt 3000 ] || fail "the collector took ${stop_ms} ms to stop"
! kill -0 "$(cat "$work/hang.pid")" 2>/dev/null || fail "the hanging ibnetdiscover survived the collector"
echo "ok: stopped in ${stop_ms} ms, the hanging tool killed, no incoming directory left"
step_done stop
ibsim_stop
trap - EXIT
echo "timings: ${timings[*]/%/;}"
echo PASS
