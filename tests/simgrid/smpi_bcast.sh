#!/usr/bin/env bash
# bench/smpi_bcast.sh on a small generated fat tree (8 nodes of 64 hosts, half of them at SDR):
# every order (none, dft, bft, dft-hca, bft-hca) and size has a positive simulated time and none's ratio is 1;
# the orders bench_bcast_orders wrote (per size) put the root first and every node once; a bad
# option exits 2 and a job larger than the fabric exits 1, both before any simulation. On a
# given fabric and allocation (--fabric, --hosts: the recorded two-switch dump, its 4 hosts with
# comments and blank lines around) every order runs too; --fabric without --hosts is an error.
# Usage: smpi_bcast.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1" ROOT="$2"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/canopy_smpi_bcast_XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$ROOT/bench/smpi_bcast.sh" --nodes 8 --fabric-hosts 64 --slow 0.5 --roots 2 --bytes 1024,65536 \
  --out "$OUT/run" --build "$BUILD" > "$OUT/table.txt" || fail "smpi_bcast.sh failed"
cat "$OUT/table.txt"
for order in none dft bft dft-hca bft-hca; do
  for bytes in 1024 65536; do
    awk -v o="$order" -v b="$bytes" '$1 == o && $2 == b && $3 + 0 > 0 && (o != "none" || $4 == "1.000") { found = 1 }
      END { exit !found }' "$OUT/table.txt" || fail "$order at $bytes bytes: no positive time"
  done
done
cmp -s "$OUT/table.txt" "$OUT/run/results.txt" || fail "results.txt is not the table printed"
python3 - "$OUT/run/job-8n-s1.binomial.orders" <<'PY' || fail "the orders file is not one permutation per line"
import sys
lines = [l.split() for l in open(sys.argv[1])]
assert lines[0][0] == "parents" and [int(x) for x in lines[0][1:]] == [-1, 0, 0, 2, 0, 4, 4, 6], lines[0]
assert len(lines) == 21, len(lines)  # 5 orders x 2 roots x 2 sizes
for order, root, size, *leaders in lines[1:]:
    assert order in ("none", "dft", "bft", "dft-hca", "bft-hca") and size in ("1024", "65536") and int(leaders[0]) == int(root), (order, root, leaders)
    assert sorted(map(int, leaders)) == list(range(8)), leaders
PY
printf '# alternating between the switches\nH1\nH3\n\nH2\nH4\n' > "$OUT/job.hosts"
"$ROOT/bench/smpi_bcast.sh" --fabric "$ROOT/tests/data/cli/two-switch-dump" --hosts "$OUT/job.hosts" --bytes 4096 \
  --out "$OUT/given" --build "$BUILD" > "$OUT/given.txt" || fail "smpi_bcast.sh --fabric --hosts failed"
cat "$OUT/given.txt"
grep -q '^# 4 nodes, binomial tree, .*two-switch-dump at its own link rates' "$OUT/given.txt" &&
  [ "$(awk '$2 == 4096 && $3 + 0 > 0' "$OUT/given.txt" | wc -l)" -eq 5 ] ||
  fail "given fabric: not five orders with a positive time on 4 nodes"
diff <(printf 'H1\nH3\nH2\nH4\n') "$OUT/given/job-given.hosts" > /dev/null || fail "the job's hosts are not the allocation's"
set +e
"$ROOT/bench/smpi_bcast.sh" --fabric "$ROOT/tests/data/cli/two-switch-dump" --out "$OUT/bad" --build "$BUILD" 2> "$OUT/err"
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q -- '--fabric needs --hosts' "$OUT/err" || fail "--fabric without --hosts: rc $rc, $(cat "$OUT/err")"
set +e
"$ROOT/bench/smpi_bcast.sh" --nodes 8 --tree ring --out "$OUT/bad" --build "$BUILD" 2> "$OUT/err"; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q 'tree must be binomial, knomial or chain' "$OUT/err" || fail "--tree ring: rc $rc, $(cat "$OUT/err")"
set +e
"$ROOT/bench/smpi_bcast.sh" --nodes 100 --fabric-hosts 64 --out "$OUT/bad" --build "$BUILD" 2> "$OUT/err"; rc=$?
"$ROOT/bench/smpi_bcast.sh" --colour red 2> /dev/null; rc2=$?
set -e
[ "$rc" -eq 1 ] && grep -q -- '--nodes must be 2 to --fabric-hosts' "$OUT/err" && [ ! -e "$OUT/bad" ] ||
  fail "--nodes 100 of 64 hosts: rc $rc, $(cat "$OUT/err")"
[ "$rc2" -eq 2 ] || fail "an unknown option: rc $rc2"
echo "ok"
