#!/usr/bin/env bash
# The topology-aware Bcast between node leaders (coll_bcast_leader_order; the topology-aware
# bcast paper, IV-B) in SimGrid SMPI: one rank per node of a scattered allocation on a generated
# fat tree, where a seeded share of the hosts has a slower HCA link (the paper's
# heterogeneous-speed case; 0 for the hop-count case alone), or of a given fabric and allocation
# (--fabric, --hosts: what `make demo` runs on its collected dump), Bcasts down the inter-leader tree
# with the leaders in the tree's own order (none) and in the dft and bft orders that
# bench_bcast_orders works out as libcanopy-mpi does (the same delay matrix and heuristic): from
# the routes canopyd answers, and (dft-hca, bft-hca) from the hosts' HCA rates alone, as without
# canopyd (the paper's speed-aware delays, IV-B2). The
# SMPI program is patterns/bcast_tree.c; the platform is `canopy topo --simgrid` of the job's
# hosts (real routes, each cable at its rate). See docs/benchmarks.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bench/smpi_bcast.sh [OPTIONS]
  --nodes N          nodes (one rank each; default 64, or every host of --hosts)
  --fabric-hosts N   hosts of the generated 3-level fat tree (default 512, radix 16)
  --slow FRACTION    share of the fabric's hosts whose link runs at SDR instead of QDR (default 0.25)
  --seed S           seed of the allocation and of the slow hosts (default 1)
  --fabric SOURCE    this topology source (see `canopy topo --formats`) instead of a generated fat
                     tree, with its own link rates; needs --hosts
  --hosts FILE       the allocation: host names, one per line, node i's on line i (comments and
                     blank lines skipped; the job takes the first --nodes, or all without --nodes)
  --tree NAME        binomial, knomial (radix 4) or chain (default binomial)
  --roots N          root nodes, spread over the job (default 4)
  --bytes LIST       message sizes (default 1024,65536,1048576)
  --out DIR          work directory (default /tmp/canopy-smpi-bcast)
  --build DIR        build directory (default build)
Prints one row per order and size on stdout (microseconds per Bcast, mean over the roots, and its
ratio to none), keeps them in OUT/results.txt.
USAGE
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
NODES= FABRIC_HOSTS=512 SOURCE= HOSTS= SLOW=0.25 SEED=1 TREE=binomial ROOTS=4 BYTES=1024,65536,1048576
OUT=/tmp/canopy-smpi-bcast BUILD="$ROOT/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) NODES="${2-}" ;; --fabric-hosts) FABRIC_HOSTS="${2-}" ;; --slow) SLOW="${2-}" ;;
    --seed) SEED="${2-}" ;; --tree) TREE="${2-}" ;; --roots) ROOTS="${2-}" ;; --bytes) BYTES="${2-}" ;;
    --out) OUT="${2-}" ;; --build) BUILD="${2-}" ;; --fabric) SOURCE="${2-}" ;; --hosts) HOSTS="${2-}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "smpi_bcast: error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift 2 || { echo "smpi_bcast: error: $1 needs a value" >&2; exit 2; }
done
die() { echo "smpi_bcast: error: $*" >&2; exit 1; }
say() { echo "[smpi_bcast $(date +%H:%M:%S)] $*" >&2; }
for v in ${NODES:+"$NODES"} "$FABRIC_HOSTS" "$ROOTS"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive integer"; done
[ -z "$SOURCE" ] || [ -n "$HOSTS" ] || die "--fabric needs --hosts (the job's allocation)"
[ -z "$HOSTS" ] || [ -n "$SOURCE" ] || die "--hosts needs --fabric"
[ -z "$HOSTS" ] || [ -r "$HOSTS" ] || die "cannot read --hosts $HOSTS"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer, not '$SEED'"
[[ "$SLOW" =~ ^(0(\.[0-9]+)?|1(\.0*)?)$ ]] || die "--slow must be a fraction from 0 to 1, not '$SLOW'"
[[ "$BYTES" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--bytes must be a list of positive sizes, not '$BYTES'"
case "$TREE" in binomial|knomial|chain) ;; *) die "--tree must be binomial, knomial or chain" ;; esac
[ -n "$SOURCE" ] || NODES=${NODES:-64}
[ -z "$NODES" ] || { [ "$NODES" -ge 2 ] && { [ -n "$SOURCE" ] || [ "$NODES" -le "$FABRIC_HOSTS" ]; }; } ||
  die "--nodes must be 2 to --fabric-hosts"
for tool in canopy bench_bcast_orders; do
  [ -x "$BUILD/bin/$tool" ] || die "$BUILD/bin/$tool not built (cmake --build $BUILD --target canopy_tool bench_bcast_orders)"
done
command -v smpicc >/dev/null && command -v smpirun >/dev/null || die "smpicc/smpirun not found (SimGrid SMPI)"
mkdir -p "$OUT"

# The fabric: a given one, or a generated fat tree, then the slow hosts' cables (both ends) at SDR.
FABRIC="${SOURCE:-$OUT/fabric-${FABRIC_HOSTS}h-slow$SLOW-s$SEED}"
if [ -z "$SOURCE" ] && [ ! -s "$FABRIC/manifest.json" ]; then
  rm -rf "$FABRIC" "$FABRIC.tmp"
  say "generating a 3-level fat tree of $FABRIC_HOSTS hosts, a share $SLOW of them at SDR"
  python3 "$ROOT/scripts/gen_fabric.py" dump --hosts "$FABRIC_HOSTS" --levels 3 --radix 16 --speed QDR \
    --out "$FABRIC.tmp" >&2
  python3 - "$FABRIC.tmp/ibnetdiscover.txt" "$SLOW" "$SEED" <<'PY'
import random, re, sys
path, share, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
text = open(path).read()
hosts = sorted(set(re.findall(r'^Ca\s.*#\s*"([^"]+)"', text, re.M)))
slow = set(random.Random(f"slow hosts {seed}").sample(hosts, round(share * len(hosts))))  # not the allocation's stream
out, in_slow_ca = [], False
for line in text.splitlines(keepends=True):
    m = re.match(r'^(Ca|Switch)\s.*#\s*"([^"]+)"', line)
    if m:
        in_slow_ca = m.group(1) == "Ca" and m.group(2) in slow
    named = re.search(r'#\s*"([^"]+)"', line)
    if line.startswith("[") and (in_slow_ca or (named and named.group(1) in slow)):
        line = line.replace("4xQDR", "4xSDR")
    out.append(line)
open(path, "w").write("".join(out))
PY
  mv "$FABRIC.tmp" "$FABRIC"
fi

# The job: the given allocation's first NODES hosts, or the first NODES of a seeded shuffle (a
# busy scheduler's scattered leftovers).
if [ -n "$HOSTS" ]; then
  JOB="$OUT/job-given"
  grep -v '^[[:space:]]*\(#\|$\)' "$HOSTS" | head -n "${NODES:-1000000}" > "$JOB.hosts" || true
  NODES=$(grep -c . "$JOB.hosts" || true)
  [ "$NODES" -ge 2 ] || die "$HOSTS names fewer than 2 hosts"
else
  JOB="$OUT/job-${NODES}n-s$SEED"
  python3 - "$FABRIC/ibnetdiscover.txt" "$SEED" "$NODES" > "$JOB.hosts" <<'PY'
import random, re, sys
hosts = sorted(set(re.findall(r'^Ca\s.*#\s*"([^"]+)"', open(sys.argv[1]).read(), re.M)))
random.Random(int(sys.argv[2])).shuffle(hosts)
print("\n".join(hosts[:int(sys.argv[3])]))
PY
fi
"$BUILD/bin/canopy" topo "$FABRIC" --simgrid "$JOB.xml" --simgrid-hosts "$JOB.hosts" | grep '^simgrid:' >&2 ||
  die "canopy topo could not export the job's platform"
"$BUILD/bin/bench_bcast_orders" --fabric "$FABRIC" --hosts "$JOB.hosts" --tree "$TREE" --roots "$ROOTS" \
  --bytes "$BYTES" > "$JOB.$TREE.orders" || die "bench_bcast_orders failed"
smpicc -O2 -o "$OUT/bcast_tree" "$HERE/patterns/bcast_tree.c" > "$OUT/bcast_tree.log" 2>&1 ||
  die "smpicc failed on bcast_tree.c: $(tail -3 "$OUT/bcast_tree.log")"
say "$NODES nodes, $TREE tree, $ROOTS roots: smpirun ..."
smpirun -np "$NODES" -platform "$JOB.xml" -hostfile "$JOB.hosts" --cfg=smpi/simulate-computation:no \
  "$OUT/bcast_tree" "$JOB.$TREE.orders" 2 > "$JOB.log" 2>&1 || true
grep -q '^bcast_tree order=' "$JOB.log" || die "no result (see $JOB.log): $(grep -v INFO "$JOB.log" | tail -3)"
# Mean over the roots per order and size, and the ratio to none's.
rm -f "$OUT/results.txt"
rates="a share $SLOW of the hosts at SDR"
[ -z "$SOURCE" ] || rates="$SOURCE at its own link rates"
python3 - "$JOB.log" "$NODES" "$TREE" "$rates" > "$OUT/results.txt.partial" <<'PY' || die "no table from $JOB.log"
import collections, re, sys
log, nodes, tree, rates = sys.argv[1:5]
us = collections.defaultdict(list)
for m in re.finditer(r"^bcast_tree order=([\w-]+) root=\d+ bytes=(\d+) us=([\d.]+)$", open(log).read(), re.M):
    us[(m.group(1), int(m.group(2)))].append(float(m.group(3)))
print(f"# {nodes} nodes, {tree} tree, {rates}: microseconds per Bcast, mean over the roots")
print("%-7s %10s %12s %8s" % ("order", "bytes", "us", "vs none"))
for (order, size) in sorted(us, key=lambda k: (k[1], ["none", "dft", "bft", "dft-hca", "bft-hca"].index(k[0]))):
    mean = sum(us[(order, size)]) / len(us[(order, size)])
    base = sum(us[("none", size)]) / len(us[("none", size)])
    print("%-7s %10d %12.1f %8.3f" % (order, size, mean, mean / base))
PY
mv "$OUT/results.txt.partial" "$OUT/results.txt"
cat "$OUT/results.txt"
