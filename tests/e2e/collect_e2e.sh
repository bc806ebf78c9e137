#!/usr/bin/env bash
# canopy-collect against a live simulated fabric: publishing moves DIR/current,
# --keep prunes old dumps, and a failing or hanging tool leaves DIR/current
# untouched, removes its incoming directory and exits non-zero with a message
# naming the tool; so does a Ctrl-C (SIGINT) while a tool runs, which ends the tool too.
#
# usage: collect_e2e.sh --work DIR --collect PATH
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
e2e_options "work collect" "$@"


current() { readlink "$out/current"; }
dumps() { find "$out" -maxdepth 1 -name 'dump-*' -type d -printf '%f\n' | sort; }

# A collector run expected to fail: non-zero exit, message on stderr, nothing published.
expect_failure() {
  local pattern=$1 before rc=0
  shift
  before=$(current)
  ibsim_run "$collect" --once --out "$out" "$@" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
  [ "$rc" -ne 0 ] || fail "canopy-collect $* succeeded"
  grep -q -- "$pattern" "$work/err.txt" || fail "canopy-collect $*: stderr lacks '$pattern': $(cat "$work/err.txt")"
  expect_eq "$(current)" "$before" "current after a failing run ($*)"
  no_incoming "$out" "a failing run ($*)"
  echo "ok: failing run ($*): $(cat "$work/err.txt")"
}

rm -rf "$work"
mkdir -p "$work"
out=$work/dumps
python3 "$root/scripts/gen_fabric.py" fat-tree --levels 2 --radix 8 --hosts 16 -o "$work/fabric.net"
ibsim_start "$work/fabric.net" "$work/sim"
ibsim_route ftree

# First dump: manifest contents.
ibsim_run "$collect" --once --out "$out" --keep 2 --json >"$work/manifest.json"
first=$(current)
[ -f "$out/$first/manifest.json" ] || fail "no manifest in $first"
python3 - "$work/manifest.json" "$out/$first/manifest.json" <<'EOF'
import json, sys
printed, stored = (json.load(open(p)) for p in sys.argv[1:])
assert printed == stored, f"--json output {printed} differs from the stored manifest {stored}"
expected = {"format": "canopy-dump/1", "hosts": 16, "switches": 8, "forwarding_tables": 8}
for key, value in expected.items():
    assert stored[key] == value, f"manifest {key}: {stored[key]!r} instead of {value!r}"
assert stored["created"].endswith("Z") and "T" in stored["created"], stored["created"]
assert stored["tools"]["ibnetdiscover"] and stored["tools"]["ibroute"], stored["tools"]
assert stored["duration_s"] > 0, stored["duration_s"]
print("ok: manifest", stored)
EOF
expect_eq "$(find "$out/$first/ibroute" -name '0x*.txt' | wc -l)" 8 "forwarding tables in $first"

# Second and third dumps: current moves; --keep 2 removes the first.
ibsim_run "$collect" --once --out "$out" --keep 2 >/dev/null
second=$(current)
[ "$second" != "$first" ] || fail "current did not move on the second run"
expect_eq "$(dumps | tr '\n' ' ')" "$first $second " "dumps after two runs"
ibsim_run "$collect" --once --out "$out" --keep 2 >/dev/null
third=$(current)
expect_eq "$(dumps | tr '\n' ' ')" "$second $third " "dumps after three runs with --keep 2"
no_incoming "$out" "a successful run"
echo "ok: current moved $first -> $second -> $third; --keep 2 pruned $first"

# Runs started in one second number on from the highest dump of that second, not
# the first free number (pruning frees the lowest, and a reused one sorts before
# the newer dumps): with -002 (not -001) of this and the next seconds already
# there, the run's dump is -003 and sorts last among its second's.
same=$work/same-second
now=$(date +%s)
for i in 0 1 2 3 4 5; do mkdir -p "$same/dump-$(date -u -d "@$((now + i))" +%Y%m%dT%H%M%SZ)-002"; done
ibsim_run "$collect" --once --out "$same" --keep 10 >/dev/null
numbered=$(readlink "$same/current")
[[ "$numbered" == *-003 ]] || fail "a run in a second with dump -002 published $numbered, not -003"
echo "ok: a run numbered on from its second's highest dump ($numbered)"

# Failures leave current alone.
expect_failure "ibnetdiscover failed (exit 1)" --ibnetdiscover /bin/false
expect_failure "ibroute .* failed (exit 1)" --ibroute /bin/false
printf '#!/bin/sh\nsleep 30\n' >"$work/hang.sh"
chmod +x "$work/hang.sh"
expect_failure "ibnetdiscover timed out after 1 s" --ibnetdiscover "$work/hang.sh" --timeout 1
expect_failure "cannot run /nonexistent/ibnetdiscover" --ibnetdiscover /nonexistent/ibnetdiscover
# Output that does not parse is kept in DIR/failed, where the error points (a removed
# .incoming-* before).
printf '#!/bin/sh\necho hello\n' >"$work/garbage.sh"
chmod +x "$work/garbage.sh"
expect_failure "$out/failed/ibnetdiscover.txt:1: unknown record 'hello'" --ibnetdiscover "$work/garbage.sh"
expect_eq "$(cat "$out/failed/ibnetdiscover.txt")" "hello" "the failed dump kept"

# SIGINT while a tool runs (the tools run in their own process group, which a terminal's Ctrl-C
# does not reach): the tool is killed too, nothing is published, nothing is left behind.
cat >"$work/slow.sh" <<EOF
#!/bin/sh
[ "\$1" = --version ] && { echo 'slow 1.0'; exit 0; }
echo \$\$ >"$work/slow.pid"
exec sleep 30
EOF
chmod +x "$work/slow.sh"
before=$(current)
set -m  # job control: the collector gets SIGINT's default action, as in a terminal, not SIG_IGN
"$collect" --once --out "$out" --ibnetdiscover "$work/slow.sh" 2>"$work/err.txt" &
collector=$!
set +m
for _ in $(seq 100); do [ -s "$work/slow.pid" ] && break; sleep 0.1; done
[ -s "$work/slow.pid" ] || fail "the slow ibnetdiscover never started"
kill -INT "$collector"
rc=0; wait "$collector" || rc=$?
[ "$rc" -ne 0 ] || fail "canopy-collect --once exited 0 after SIGINT"
! kill -0 "$(cat "$work/slow.pid")" 2>/dev/null || fail "SIGINT left the tool running"
expect_eq "$(current)" "$before" "current after SIGINT"
no_incoming "$out" "a run stopped by SIGINT"
echo "ok: SIGINT during --once: exit $rc, $(cat "$work/err.txt")"
rc=0; "$collect" --out "$out" 2>"$work/err.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "canopy-collect without --once or --watch: exit $rc, not 2 (a usage error)"
grep -q "one of --once and --watch is required" "$work/err.txt" || fail "no usage message: $(cat "$work/err.txt")"
rc=0; "$collect" --once --out "$out" --timeout 0 2>"$work/err.txt" || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--timeout: must be greater than 0, not 0" "$work/err.txt" ||
  fail "--timeout 0: exit $rc, $(cat "$work/err.txt")"
for log in "" "$work"; do  # followed every 0.2 s, a folder warned each time; "" followed nothing
  rc=0; "$collect" --watch --out "$out" --opensm-log "$log" 2>"$work/err.txt" || rc=$?
  [ "$rc" -eq 2 ] && grep -q -- "--opensm-log: .*\(empty path\|is a folder\)" "$work/err.txt" ||
    fail "--opensm-log '$log': exit $rc, $(cat "$work/err.txt")"
done
expect_eq "$(dumps | tr '\n' ' ')" "$second $third " "dumps after the failing runs"
ibsim_stop
echo "PASS"
