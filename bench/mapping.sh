#!/usr/bin/env bash
# Task-mapping benchmark: every mapping algorithm (identity, block, greedy,
# greedy-refined, rt, rb where coordinates exist, scotch when this build has
# it) on 3D 7- and 27-point stencils, partitioned unstructured meshes, an
# AMR-like pattern and random sparse graphs, at 256 to 65,536 processes, on
# fat trees with scattered allocations and on 3D tori, plus each instance's
# per-cut relaxation (bench/cut_relaxation.h: the hop-bytes no mapping beats
# unless it cuts some level of the machine better than METIS and every mapping
# of the run did).
# Writes results.jsonl (raw), results.csv, results.md (the tables for
# docs/benchmarks.md) and, with gnuplot, the charts hop-bytes.svg and time.svg
# in the output directory.
# A benchmark, not a test. See docs/benchmarks.md ("Task mapping").
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bench/mapping.sh [OPTIONS]
  --sizes LIST       processes, comma-separated multiples of 16 (default 256,1024,8192,65536)
  --quick            --sizes 256,1024
  --instances LIST   stencil7,stencil27,mesh,amr,random (default: all)
  --machines LIST    fattree,torus,fattree-uneven (default: all three)
  --algorithms LIST  default identity,block,greedy,greedy-refined,rt,rb,scotch (rb on
                     tori only; scotch only when `canopy map` lists it). The baselines
                     (identity, block, greedy, scotch) run without Canopy's steps: greedy
                     is its placement alone; greedy-refined is canopy map's greedy, every
                     step included
  --seeds LIST       mapping seeds (default 1): rt, rb and scotch run once per seed,
                     and the tables show medians over the seeds and their spread
  --analytic-placement N
                     greedy-refined, rt and rb with canopy map's --analytic-placement N
                     (their host groups placed analytically on tori, at most N
                     iterations); default: canopy map's default; 0: none
  --anneal-moves N   after each rt run, rt again with canopy map's --anneal-moves N (its
                     host groups annealed, N moves per host; slow); default 0: none
  --anneal-processes N
                     after each rt run, rt again with canopy map's --anneal-processes N
                     (its processes annealed, N moves per process; slow; with
                     --anneal-moves, both in that run); default 0: none
  --out DIR          results and generated inputs (default /tmp/canopy-bench-mapping);
                     inputs are reused, results.jsonl is started afresh
  --build DIR        build directory (default build)
Inputs: 16 slots per host on a node 'pack:2 core:8 pu:1'. Fat tree: gen_fabric.py
dump (forwarding tables) with twice the hosts needed, the job on a random half, host
file shuffled. Torus: a cube with one host per router, every host allocated in
shuffled order (256 processes: 16 random hosts of a 4x4x4 torus). fattree-uneven:
the fat tree's hosts with 8 and 24 slots in turn (16 on average) on a node
'pack:2 core:12 pu:1', as when some nodes are shared and others larger.
EOF
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
SIZES=256,1024,8192,65536 INSTANCES=stencil7,stencil27,mesh,amr,random MACHINES=fattree,torus,fattree-uneven
ALGORITHMS=identity,block,greedy,greedy-refined,rt,rb,scotch SEEDS=1 OUT=/tmp/canopy-bench-mapping BUILD="$ROOT/build" ANALYTIC= ANNEAL_MOVES=0
ANNEAL_PROCESSES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) SIZES=256,1024; shift; continue ;;
    -h|--help) usage; exit 0 ;;
    --sizes) SIZES="${2-}" ;; --instances) INSTANCES="${2-}" ;; --machines) MACHINES="${2-}" ;;
    --algorithms) ALGORITHMS="${2-}" ;; --seeds) SEEDS="${2-}" ;; --out) OUT="${2-}" ;; --build) BUILD="${2-}" ;;
    --analytic-placement) ANALYTIC="${2-}" ;; --anneal-moves) ANNEAL_MOVES="${2-}" ;;
    --anneal-processes) ANNEAL_PROCESSES="${2-}" ;;
    *) echo "mapping.sh: error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift 2 || { echo "mapping.sh: error: $1 needs a value" >&2; exit 2; }
done
die() { echo "mapping.sh: error: $*" >&2; exit 1; }
# The comma-separated LIST without NAME.
without() { echo ",$2," | sed "s/,$1,/,/; s/^,//; s/,\$//"; }
for tool in bin/canopy bin/bench_map bin/bench_gen_mesh; do
  [ -x "$BUILD/$tool" ] || die "$BUILD/$tool not built (cmake --build $BUILD --target canopy_tool bench_map bench_gen_mesh)"
done
# The help is read whole: grep -q would close the pipe early, and pipefail would count canopy's SIGPIPE.
if [[ ",$ALGORITHMS," == *,scotch,* && "$("$BUILD/bin/canopy" map --help)" != *scotch* ]]; then
  echo "note: this build's canopy map has no scotch algorithm; Scotch is left out of the comparison" >&2
  ALGORITHMS="$(without scotch "$ALGORITHMS")"
fi
PPN=16  # slots per host on average
# Every option checked before anything is written: a mistyped one must not empty the last run's results.
[[ "$SIZES" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes takes comma-separated multiples of $PPN (got '$SIZES')"
for p in ${SIZES//,/ }; do
  [[ "$p" =~ ^0*[1-9][0-9]{0,8}$ && $((10#$p % PPN)) -eq 0 ]] || die "size $p is not a positive multiple of $PPN"
done
# Each name of LIST (option $1) must be one of KNOWN.
check_list() {
  local item
  for item in ${2//,/ }; do
    [[ ",$3," == *",$item,"* ]] || die "$1: unknown name '$item' (known: $3)"
  done
  [ -n "${2//,/}" ] || die "$1 needs at least one name"
}
check_list --instances "$INSTANCES" stencil7,stencil27,mesh,amr,random
check_list --machines "$MACHINES" fattree,torus,fattree-uneven
check_list --algorithms "$ALGORITHMS" identity,block,greedy,greedy-refined,rt,rb,scotch
[[ "$SEEDS" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--seeds takes comma-separated non-negative integers (got '$SEEDS')"
[[ -z "$ANALYTIC" || "$ANALYTIC" =~ ^[0-9]+$ ]] || die "--analytic-placement takes a non-negative integer (got '$ANALYTIC')"
[[ "$ANNEAL_MOVES" =~ ^[0-9]+$ ]] || die "--anneal-moves takes a non-negative integer (got '$ANNEAL_MOVES')"
[[ "$ANNEAL_PROCESSES" =~ ^[0-9]+$ ]] || die "--anneal-processes takes a non-negative integer (got '$ANNEAL_PROCESSES')"
mkdir -p "$OUT/inputs"
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
IN="$OUT/inputs"

# The most balanced X x Y x Z factorisation of N (X >= Y >= Z); divisors only.
grid_dims() {
  python3 -c "
n=$1; divisors=[d for d in range(1,n+1) if n%d==0]
best=min((x-n//(x*y),(x,y,n//(x*y))) for x in divisors for y in divisors if y<=x and n%(x*y)==0 and n//(x*y)<=y)
print('x'.join(map(str,best[1])))"
}

# The communication graph of an instance (generated once, complete or not at all); prints its spec and --parts.
make_graph() {
  local kind=$1 p=$2 file
  case "$kind" in
    stencil7|stencil27)
      file="$IN/$kind-$p.graph"
      [ -s "$file" ] || { python3 "$ROOT/scripts/gen_comm_graph.py" stencil --dims "$(grid_dims "$p")" \
        --points "${kind#stencil}" --bytes 65536 -o "$file.tmp" && mv "$file.tmp" "$file"; }
      echo "$file 0" ;;
    mesh)  # 16 matrix rows per process, at most 2^20 rows
      local rows=$((p * 16 > 1048576 ? 1048576 : p * 16))
      file="$IN/mesh-$rows.mtx"
      [ -s "$file" ] || "$BUILD/bin/bench_gen_mesh" --points "$rows" --neighbors 10 --seed 1 -o "$file"
      echo "$file $p" ;;
    amr)
      file="$IN/amr-$p.graph"
      [ -s "$file" ] || { python3 "$ROOT/scripts/gen_comm_graph.py" amr --processes "$p" --seed 1 -o "$file.tmp" &&
        mv "$file.tmp" "$file"; }
      echo "$file 0" ;;
    random)
      file="$IN/random-$p.graph"
      [ -s "$file" ] || { python3 "$ROOT/scripts/gen_comm_graph.py" random --processes "$p" --degree 8 --seed 1 \
        -o "$file.tmp" && mv "$file.tmp" "$file"; }
      echo "$file 0" ;;
    *) die "unknown instance $kind" ;;
  esac
}

# Picks COUNT of the lines of stdin at random (seeded), in random order.
scatter() { python3 -c "
import random, sys
lines = sys.stdin.read().split(); random.Random($2).shuffle(lines); print('\n'.join(lines[:$1]))"; }

# Host file lines "NAME slots=N" for the names on stdin, N taking the given counts in turn.
with_slots() { awk -v counts="$*" 'BEGIN { n = split(counts, c, " ") } { print $1 " slots=" c[(NR - 1) % n + 1] }'; }

# The fabric and host file (every line with its slots) of a machine; prints "SOURCE HOSTFILE".
make_machine() {
  local kind=$1 hosts=$2
  case "$kind" in
    fattree|fattree-uneven)
      local dump="$IN/fattree-$((2 * hosts))"
      if [ ! -f "$dump/manifest.json" ]; then
        rm -rf "$dump"
        echo "[$(date +%H:%M:%S)] generating $dump (once; kept for later runs)" >&2
        python3 "$ROOT/scripts/gen_fabric.py" dump --hosts $((2 * hosts)) --out "$dump" >&2
      fi
      local hostfile="$dump.$hosts.$kind.hosts"
      sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$dump/ibnetdiscover.txt" | scatter "$hosts" 1 |
        if [ "$kind" = fattree ]; then with_slots 16; else with_slots 8 24; fi > "$hostfile"
      [ -s "$hostfile" ] || die "could not list the hosts of $dump"
      echo "$dump $hostfile" ;;
    torus)
      local side
      side=$(python3 -c "
h=$hosts; c=round(h ** (1 / 3))
print(c if c ** 3 == h else next(s for s in range(2, 99) if s ** 3 >= 2 * h))")
      local file="$IN/torus-$side.torus"
      [ -s "$file" ] || { python3 -c "
s=$side; print(f'dims {s} {s} {s}')
for z in range(s):
  for y in range(s):
    for x in range(s): print(f'host t{x}-{y}-{z} {x} {y} {z}')" > "$file.tmp" && mv "$file.tmp" "$file"; }
      grep '^host' "$file" | awk '{print $2}' | scatter "$hosts" 1 | with_slots 16 > "$file.$hosts.hosts"
      echo "torus:$file $file.$hosts.hosts" ;;
    *) die "unknown machine $kind" ;;
  esac
}

echo "task-mapping benchmark: sizes $SIZES; instances $INSTANCES; machines $MACHINES; algorithms $ALGORITHMS; seeds $SEEDS" >&2
echo "results: $RESULTS (load average now: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
for p in ${SIZES//,/ }; do
  p=$((10#$p))
  for machine in ${MACHINES//,/ }; do
    read -r fabric hostfile < <(make_machine "$machine" $((p / PPN))) || { echo "  (could not make the $machine machine; going on)" >&2; continue; }
    algorithms="$ALGORITHMS"
    [ "$machine" = torus ] || algorithms="$(without rb "$algorithms")"
    most=$(sed 's/.*slots=//' "$hostfile" | sort -n | tail -n 1)
    node="pack:2 core:$((most / 2)) pu:1"
    for instance in ${INSTANCES//,/ }; do
      echo "[$(date +%H:%M:%S)] $instance, $p processes, $machine (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      read -r graph parts < <(make_graph "$instance" "$p") || { echo "  (could not generate $instance; going on)" >&2; continue; }
      "$BUILD/bin/bench_map" --graph "$graph" --parts "$parts" --fabric "$fabric" --hosts "$hostfile" \
        --node-topology "$node" --algorithms "$algorithms" --seeds "$SEEDS" \
        ${ANALYTIC:+--analytic-placement "$ANALYTIC"} --anneal-moves "$ANNEAL_MOVES" --anneal-processes "$ANNEAL_PROCESSES" \
        --instance "$instance" --machine "$machine" --out "$RESULTS" ||
        echo "  (bench_map failed on this instance; going on)" >&2
    done
  done
done
if command -v gnuplot > /dev/null; then
  charts=(--plot-hop-bytes "$OUT/hop-bytes.svg" --plot-time "$OUT/time.svg")
  echo "charts: $OUT/hop-bytes.svg, $OUT/time.svg" >&2
else
  charts=()
  echo "note: no gnuplot, so no charts" >&2
fi
python3 "$HERE/mapping_report.py" "$RESULTS" --csv "$OUT/results.csv" --markdown "$OUT/results.md" "${charts[@]}"
echo "tables: $OUT/results.md; raw: $RESULTS, $OUT/results.csv" >&2
