#!/usr/bin/env bash
# The paper's evaluation (hierarchical task mapping, Sec. 5) in SimGrid SMPI:
# communication time of a halo exchange (halo3d) and sparse-matrix exchanges
# (spmv_pattern on a 27-point stencil matrix, and on an irregular matrix split
# into the ranks by METIS, as the paper's F1/audikw_1) under the system default
# placement (identity), inter-node mapping only (rt, intra-node off) and
# inter+intra-node mapping (rt+intra), at several rank counts, on a scattered
# allocation of a generated fat tree (or of any topology source and allocation
# given with --fabric and --hosts). Each job's allocation is exported with
# one SimGrid host per core (canopy topo --simgrid-cores), so that where ranks
# sit inside a node matters; the placements come from `canopy map` rankfiles.
# See docs/simgrid.md ("The paper's evaluation").
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bench/smpi_eval.sh [OPTIONS]
  --ranks LIST       rank counts (default 256,512,1024)
  --ppn N            ranks per node = cores used per node (default 16)
  --node SPEC        node topology, hwloc synthetic (default 'pack:2 core:8 pu:1', Stampede's)
  --fabric-hosts N   hosts of the generated fat tree (default 512)
  --levels 2|3       fat-tree levels (default 3)
  --radix K          switch radix (default 16)
  --seed S           seed of the scattered allocation (default 1)
  --fabric SOURCE    evaluate on this topology source (a dump directory, ibnetdiscover output, ...:
                     see `canopy topo --formats`) instead of generating a fat tree; needs --hosts
  --hosts FILE       the allocation: host names in the order the scheduler gave them, one per line
                     (a job of N nodes gets the first N; default: the fabric's hosts shuffled by --seed)
  --patterns LIST    halo3d,spmv,mesh (default all three)
  --bytes N          halo3d face / stencil face message size (default 65536)
  --mesh-rows N      mesh: rows of the matrix (bench_gen_mesh's graded 3D mesh, 10 neighbours;
                     default 262144), split into the ranks by METIS; 8 bytes per row sent
  --mesh-seed S      mesh: seed of the matrix and of its METIS split (default 1)
  --mesh-vectors K   mesh: vectors multiplied at once (a block SpMV), K x 8 bytes per row sent (default 1)
  --iters N          timed exchange steps (default 10; 1 warm-up step); see docs/simgrid.md
                     on how a step is timed
  --placements LIST  identity,rt,rt+intra (default all three)
  --out DIR          work directory (default /tmp/canopy-smpi-eval); fabric and platforms reused
  --canopy BIN       the canopy tool (default build/bin/canopy)
Prints progress on stderr and one result row per run on stdout:
pattern ranks nodes placement us_per_step vs_ident hopbytes cross_MB wall_s load1
(simulated us per exchange step; its change against identity, '-' without identity, which runs first;
hop-bytes relative to identity's; cross-socket MB per step). Once every run succeeded the rows are kept
in OUT/results.txt and, with gnuplot, drawn in OUT/results.svg (bench/smpi_eval_chart.py); a failed
run leaves neither (its rows so far: OUT/results.txt.partial)
USAGE
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
RANKS_LIST=256,512,1024 PPN=16 NODE='pack:2 core:8 pu:1' FABRIC_HOSTS=512 LEVELS=3 RADIX=16 SEED=1 SOURCE="" HOSTS=""
PATTERNS=halo3d,spmv,mesh BYTES=65536 MESH_ROWS=262144 MESH_SEED=1 MESH_VECTORS=1 ITERS=10 PLACEMENTS=identity,rt,rt+intra OUT=/tmp/canopy-smpi-eval
CANOPY="$ROOT/build/bin/canopy"
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) RANKS_LIST="${2-}" ;; --ppn) PPN="${2-}" ;; --node) NODE="${2-}" ;;
    --fabric-hosts) FABRIC_HOSTS="${2-}" ;; --levels) LEVELS="${2-}" ;; --radix) RADIX="${2-}" ;;
    --seed) SEED="${2-}" ;; --fabric) SOURCE="${2-}" ;; --hosts) HOSTS="${2-}" ;;
    --patterns) PATTERNS="${2-}" ;; --bytes) BYTES="${2-}" ;; --iters) ITERS="${2-}" ;;
    --mesh-rows) MESH_ROWS="${2-}" ;; --mesh-seed) MESH_SEED="${2-}" ;;
    --mesh-vectors) MESH_VECTORS="${2-}" ;;
    --placements) PLACEMENTS="${2-}" ;; --out) OUT="${2-}" ;; --canopy) CANOPY="${2-}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "smpi_eval: error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift 2 || { echo "smpi_eval: error: $1 needs a value" >&2; exit 2; }
done
die() { echo "smpi_eval: error: $*" >&2; exit 1; }
say() { echo "[smpi_eval $(date +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)] $*" >&2; }
posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, not '$2'"; }
IFS=',' read -r -a RANK_COUNTS <<< "$RANKS_LIST"
IFS=',' read -r -a PATTERN_LIST <<< "$PATTERNS"
IFS=',' read -r -a PLACEMENT_LIST <<< "$PLACEMENTS"
[ "${#RANK_COUNTS[@]}" -gt 0 ] || die "--ranks lists no rank count"
for ranks in "${RANK_COUNTS[@]}"; do posint --ranks "$ranks"; done
posint --ppn "$PPN"; posint --fabric-hosts "$FABRIC_HOSTS"; posint --radix "$RADIX"; posint --bytes "$BYTES"
posint --iters "$ITERS"; posint --mesh-rows "$MESH_ROWS"; posint --mesh-vectors "$MESH_VECTORS"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer, not '$SEED'"
[[ "$MESH_SEED" =~ ^[0-9]+$ ]] || die "--mesh-seed must be a non-negative integer, not '$MESH_SEED'"
case "$LEVELS" in 2|3) ;; *) die "--levels must be 2 or 3, not '$LEVELS'" ;; esac
for ranks in "${RANK_COUNTS[@]}"; do
  [ $((ranks % PPN)) -eq 0 ] || die "$ranks ranks are not a multiple of $PPN per node"
done
[ "${#PATTERN_LIST[@]}" -gt 0 ] || die "--patterns lists no pattern"
for pattern in "${PATTERN_LIST[@]}"; do
  case "$pattern" in halo3d|spmv|mesh) ;; *) die "unknown pattern '$pattern' (halo3d, spmv, mesh)" ;; esac
done
[ "${#PLACEMENT_LIST[@]}" -gt 0 ] || die "--placements lists no placement"
ordered=()  # identity first: the others' change is against it
for placement in "${PLACEMENT_LIST[@]}"; do
  case "$placement" in
    identity) ordered=(identity "${ordered[@]}") ;;
    rt|rt+intra) ordered+=("$placement") ;;
    *) die "unknown placement '$placement' (identity, rt, rt+intra)" ;;
  esac
done
PLACEMENT_LIST=("${ordered[@]}")
if [ -n "$HOSTS" ] && { [ ! -f "$HOSTS" ] || [ ! -r "$HOSTS" ]; }; then die "cannot read --hosts $HOSTS"; fi
command -v smpicc >/dev/null && command -v smpirun >/dev/null || die "smpicc/smpirun not found (SimGrid SMPI)"
[ -x "$CANOPY" ] || die "$CANOPY not built (cmake --build build --target canopy_tool)"
GEN_MESH="$(dirname "$CANOPY")/bench_gen_mesh"
case ",$PATTERNS," in *,mesh,*) [ -x "$GEN_MESH" ] || die "$GEN_MESH not built (cmake --build build --target bench_gen_mesh)" ;; esac
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }
mkdir -p "$OUT/bin"

# The fabric, and the allocation: the hosts in the order the scheduler gave
# them; a job of N nodes gets the first N. By default every host of a generated
# fat tree in a seeded random order (a busy scheduler's scattered leftovers).
if [ -n "$SOURCE" ]; then
  [ -n "$HOSTS" ] || die "--fabric needs --hosts (the job's allocation)"
  FABRIC="$SOURCE"
else
  FABRIC="$OUT/fabric-${FABRIC_HOSTS}h-${LEVELS}l-r$RADIX"
  # gen_fabric.py writes manifest.json last: without it the directory is a cut-short generation.
  if [ ! -s "$FABRIC/manifest.json" ]; then
    rm -rf "$FABRIC"
    say "generating a $LEVELS-level fat tree of $FABRIC_HOSTS hosts (radix $RADIX)"
    python3 "$ROOT/scripts/gen_fabric.py" dump --hosts "$FABRIC_HOSTS" --levels "$LEVELS" --radix "$RADIX" \
      --out "$FABRIC" >&2
  fi
fi
TAG="$([ -n "$HOSTS" ] && echo given || echo "s$SEED")"
ALLOCATION="$OUT/allocation-$TAG.txt"
if [ -n "$HOSTS" ]; then
  grep -v '^[[:space:]]*\(#\|$\)' "$HOSTS" > "$ALLOCATION" || die "$HOSTS names no host"
else
  python3 - "$FABRIC/ibnetdiscover.txt" "$SEED" > "$ALLOCATION" <<'PY'
import random, re, sys
hosts = sorted(set(re.findall(r'^Ca\s.*#\s*"([^"]+)"', open(sys.argv[1]).read(), re.M)))
random.Random(int(sys.argv[2])).shuffle(hosts)
print("\n".join(hosts))
PY
  [ -s "$ALLOCATION" ] || die "no hosts found in $FABRIC/ibnetdiscover.txt"
fi

for ranks in "${RANK_COUNTS[@]}"; do
  [ $((ranks / PPN)) -le "$(wc -l < "$ALLOCATION")" ] ||
    die "$((ranks / PPN)) nodes do not fit the allocation's $(wc -l < "$ALLOCATION") hosts"
done

# The benchmarks, built with smpicc.
for prog in halo3d spmv_pattern; do
  if [ ! -x "$OUT/bin/$prog" ] || [ "$HERE/patterns/$prog.c" -nt "$OUT/bin/$prog" ] ||
     [ "$HERE/patterns/pattern_common.h" -nt "$OUT/bin/$prog" ]; then
    smpicc -O2 -o "$OUT/bin/$prog" "$HERE/patterns/$prog.c" -lm > "$OUT/bin/$prog.log" 2>&1 ||
      die "smpicc failed on $prog.c: $(tail -3 "$OUT/bin/$prog.log")"
  fi
done

balanced_dims() {
  python3 -c "
n=$1; best=None
for x in range(1,n+1):
  for y in range(1,x+1):
    if n%(x*y)==0 and n//(x*y)<=y:
      d=(x,y,n//(x*y)); s=max(d)-min(d)
      if best is None or s<best[0]: best=(s,d)
print('x'.join(map(str,best[1])))"
}

# Why smpirun gave no result: the benchmark's own error if it printed one, else the log's last lines.
why() { grep -m1 -E '^(halo3d|spmv_pattern): error:' "$1" || grep -v INFO "$1" | tail -3; }

# rank R=HOST slot=CORE  ->  line R: HOST.cCORE (the per-core platform's host ids)
rankfile_to_hostfile() {
  sed -E 's/^rank ([0-9]+)=([^ ]+) slot=([0-9]+)$/\1 \2.c\3/' "$1" | sort -n | cut -d' ' -f2
}

# The rows go to results.txt.partial, renamed results.txt once every run succeeded; a chart or
# table of an earlier run is removed first, so that a failed run leaves neither.
RESULTS="$OUT/results.txt"
rm -f "$RESULTS" "$RESULTS.partial" "$OUT/results.svg"
: > "$RESULTS.partial"
printf "%-7s %6s %5s %-9s %12s %8s %9s %10s %7s %6s\n" pattern ranks nodes placement us_per_step vs_ident \
  hopbytes cross_MB wall_s load1 | tee -a "$RESULTS.partial"
for ranks in "${RANK_COUNTS[@]}"; do
  nodes=$((ranks / PPN))
  JOB="$OUT/job-${nodes}n-$TAG"
  head -n "$nodes" "$ALLOCATION" > "$JOB.hosts"
  # A seeded allocation's platform is reused when it was exported from the same fabric, node
  # model and hosts (JOB.key); a given source or allocation may have changed.
  key="$(printf '%s\n%s\n' "$FABRIC" "$NODE"; cat "$JOB.hosts")"
  if [ "$TAG" = given ] || [ ! -s "$JOB.xml" ] || [ "$CANOPY" -nt "$JOB.xml" ] ||
     [ "$key" != "$(cat "$JOB.key" 2>/dev/null)" ]; then
    t0=$(now)
    rm -f "$JOB.key"
    "$CANOPY" topo "$FABRIC" --simgrid "$JOB.xml" --simgrid-hosts "$JOB.hosts" --simgrid-cores "$NODE" |
      grep '^simgrid:' >&2
    printf '%s\n' "$key" > "$JOB.key"
    say "exported the $nodes nodes of the job ($NODE) in $(since "$t0") s, $(du -h "$JOB.xml" | cut -f1)"
  fi
  dims="$(balanced_dims "$ranks")"
  for pattern in "${PATTERN_LIST[@]}"; do
    case "$pattern" in
      halo3d)
        graph="$OUT/halo3d-$dims-$BYTES.edges"
        # halo3d sends BYTES each way to each grid neighbour: 2*BYTES per pair.
        python3 "$ROOT/scripts/gen_comm_graph.py" stencil --dims "$dims" --bytes $((2 * BYTES)) --format edges -o "$graph"
        shape="grid $dims"
        args=(--dims "$dims" --bytes "$BYTES" --iters "$ITERS" --warmup 1)
        bench="$OUT/bin/halo3d" ;;
      spmv)
        graph="$OUT/stencil27-$dims-$BYTES.edges"
        python3 "$HERE/smpi_placement.py" stencil27 --dims "$dims" --bytes "$BYTES" -o "$graph"
        shape="grid $dims"
        args=("$graph" --iters "$ITERS" --warmup 1)
        bench="$OUT/bin/spmv_pattern" ;;
      mesh)
        matrix="$OUT/mesh-$MESH_ROWS-s$MESH_SEED.mtx"
        [ -s "$matrix" ] || "$GEN_MESH" --points "$MESH_ROWS" --seed "$MESH_SEED" -o "$matrix" >&2 ||
          die "bench_gen_mesh failed"
        # The halo graph of the matrix split into the ranks (rank r: the r-th METIS part), as canopy maps it.
        graph="$OUT/mesh-$MESH_ROWS-s$MESH_SEED-$ranks.edges"
        [ -s "$graph" ] || "$CANOPY" map --graph "$matrix" --parts "$ranks" --seed "$MESH_SEED" --fabric "$FABRIC" \
          --hosts "$JOB.hosts" --ppn "$PPN" --algorithm identity --process-graph "$graph" > /dev/null ||
          die "canopy map could not split $matrix into $ranks ranks"
        shape="$MESH_ROWS-row matrix, $MESH_VECTORS vector(s)"
        args=("$graph" --iters "$ITERS" --warmup 1 --scale "$MESH_VECTORS")
        bench="$OUT/bin/spmv_pattern" ;;
    esac
    identity_us=""
    for placement in "${PLACEMENT_LIST[@]}"; do
      case "$placement" in
        identity) map_args=(--algorithm identity) ;;
        rt) map_args=(--algorithm rt --no-intra) ;;
        rt+intra) map_args=(--algorithm rt) ;;
      esac
      stem="$OUT/$pattern-$ranks-$placement"
      "$CANOPY" map --graph "edges:$graph" --fabric "$FABRIC" --hosts "$JOB.hosts" --ppn "$PPN" \
        --node-topology "$NODE" "${map_args[@]}" --rankfile "$stem.rankfile" --json > "$stem.json" ||
        die "canopy map failed for $pattern/$placement"
      rankfile_to_hostfile "$stem.rankfile" > "$stem.hosts"
      [ "$(wc -l < "$stem.hosts")" -eq "$ranks" ] || die "$stem.hosts: expected $ranks lines"
      # canopy map's bytes are one vector's: mesh sends --mesh-vectors of them per step.
      read -r hop_ratio cross_mb < <(python3 -c "
import json,sys; j=json.load(open('$stem.json')); m=j['metrics']; i=j['identity']
scale = $([ "$pattern" = mesh ] && echo "$MESH_VECTORS" || echo 1)
print('%.3f' % (m['hop_bytes']/i['hop_bytes'] if i['hop_bytes'] else 1), '%.1f' % (scale * (m.get('cross_socket_bytes') or 0)/1e6))")
      load=$(cut -d' ' -f1 /proc/loadavg)
      say "$pattern $ranks ranks ($nodes nodes, $shape): $placement: smpirun ..."
      t0=$(now)
      # SMPI exits 0 even after MPI_Abort: the result line is the proof of success.
      smpirun -np "$ranks" -platform "$JOB.xml" -hostfile "$stem.hosts" --cfg=smpi/simulate-computation:no \
        --cfg=smpi/host-speed:1Gf "$bench" "${args[@]}" > "$stem.log" 2>&1 || true
      wall=$(since "$t0")
      line="$(grep -E '^(halo3d|spmv_pattern) ranks=' "$stem.log" || true)"
      [ -n "$line" ] || die "$pattern/$placement: no result (see $stem.log): $(why "$stem.log")"
      us="$(sed -E 's/.*per_iter_us=([^ ]+).*/\1/' <<< "$line")"
      [ "$placement" != identity ] || identity_us="$us"
      ratio=-
      [ -z "$identity_us" ] || ratio=$(awk -v a="$us" -v b="$identity_us" 'BEGIN{printf "%+.1f%%", (a/b-1)*100}')
      printf "%-7s %6s %5s %-9s %12s %8s %9s %10s %7s %6s\n" "$pattern" "$ranks" "$nodes" "$placement" "$us" \
        "$ratio" "$hop_ratio" "$cross_mb" "$wall" "$load" | tee -a "$RESULTS.partial"
    done
  done
done
mv "$RESULTS.partial" "$RESULTS"
if command -v gnuplot > /dev/null; then
  python3 "$HERE/smpi_eval_chart.py" "$RESULTS" "$OUT/results.svg" || die "could not draw $OUT/results.svg"
  say "done: $RESULTS, chart $OUT/results.svg"
else
  say "done: $RESULTS (no gnuplot, so no chart)"
fi
