#!/usr/bin/env bash
# Evaluates rank placements in SimGrid SMPI on a real fabric: generates a fat
# tree (scripts/gen_fabric.py dump: d-mod-k forwarding tables), exports it with
# `canopy topo --simgrid`, builds the pattern benchmarks with smpicc, and runs
# one pattern under every placement on the same platform, printing the
# simulated communication time of each. See docs/simgrid.md.
#
# A placement is a machine file: one host name per line per rank, in rank
# order (line r = the host of rank r) -- what `canopy map` writes as its MPICH
# machine file / permutation, and what smpirun's -hostfile reads.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bench/smpi_mapping.sh [OPTIONS]
  --hosts N          fabric hosts (default 256); the job uses all of them
  --levels 2|3       fat-tree levels (default 2)
  --radix K          switch radix (default: gen_fabric.py's smallest that fits)
  --ppn P            ranks per host (default 1)
  --pattern NAME     halo3d | spmv (default halo3d)
  --dims XxYxZ       rank grid (default: balanced, from smpi_placement.py)
  --bytes N          halo3d face / stencil27 face message size (default 65536)
  --iters N          timed exchange steps (default 5)
  --graph FILE       spmv: SRC DST BYTES edge list (default: 27-point stencil of the grid)
  --placements LIST  comma-separated: identity, random, leaf-blocks, or NAME=MACHINEFILE
                     (default identity,random,leaf-blocks)
  --latency US       per-link latency of the platform (default: canopy's topo_hop_latency_us)
  --out DIR          work directory (default /tmp/canopy-smpi); the platform of the same fabric
                     shape and latency is reused
  --canopy BIN       the canopy tool (default build/bin/canopy)
Prints one line per placement: name, simulated comm time (s), per step (us), wall time (s);
progress on stderr.
EOF
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
HOSTS=256 LEVELS=2 RADIX="" PPN=1 PATTERN=halo3d DIMS="" BYTES=65536 ITERS=5 GRAPH=""
PLACEMENTS="identity,random,leaf-blocks" LATENCY="" OUT=/tmp/canopy-smpi CANOPY="$ROOT/build/bin/canopy"
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) HOSTS="${2-}" ;; --levels) LEVELS="${2-}" ;; --radix) RADIX="${2-}" ;; --ppn) PPN="${2-}" ;;
    --pattern) PATTERN="${2-}" ;; --dims) DIMS="${2-}" ;; --bytes) BYTES="${2-}" ;; --iters) ITERS="${2-}" ;;
    --graph) GRAPH="${2-}" ;; --placements) PLACEMENTS="${2-}" ;; --latency) LATENCY="${2-}" ;;
    --out) OUT="${2-}" ;; --canopy) CANOPY="${2-}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "smpi_mapping: error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift 2 || { echo "smpi_mapping: error: $1 needs a value" >&2; exit 2; }
done
die() { echo "smpi_mapping: error: $*" >&2; exit 1; }
case "$PATTERN" in halo3d|spmv) ;; *) die "--pattern must be halo3d or spmv" ;; esac
posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, not '$2'"; }
posint --hosts "$HOSTS"; posint --ppn "$PPN"; posint --bytes "$BYTES"; posint --iters "$ITERS"
[ -z "$RADIX" ] || posint --radix "$RADIX"
case "$LEVELS" in 2|3) ;; *) die "--levels must be 2 or 3, not '$LEVELS'" ;; esac
[ -z "$LATENCY" ] || [[ "$LATENCY" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--latency must be a number of microseconds, not '$LATENCY'"
[ -z "$DIMS" ] || [[ "$DIMS" =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*$ ]] || die "--dims must be XxYxZ, not '$DIMS'"
[ -z "$DIMS" ] || [ $((${DIMS//x/*})) -eq $((HOSTS * PPN)) ] ||
  die "--dims $DIMS is $((${DIMS//x/*})) ranks, not the $((HOSTS * PPN)) of $HOSTS hosts x $PPN"
[ -z "$GRAPH" ] || [ -r "$GRAPH" ] || die "cannot read --graph $GRAPH"
IFS=',' read -r -a LIST <<< "$PLACEMENTS"
[ "${#LIST[@]}" -gt 0 ] || die "--placements lists no placement"
for entry in "${LIST[@]}"; do
  case "$entry" in
    ?*=*) [ -r "${entry#*=}" ] && [ -f "${entry#*=}" ] || die "placement ${entry%%=*}: cannot read ${entry#*=}" ;;
    identity|random|leaf-blocks) ;;
    *) die "unknown placement '$entry' (identity, random, leaf-blocks or NAME=MACHINEFILE)" ;;
  esac
done
command -v smpicc >/dev/null && command -v smpirun >/dev/null || die "smpicc/smpirun not found (SimGrid SMPI)"
[ -x "$CANOPY" ] || die "$CANOPY not built (cmake --build build --target canopy_tool)"
RANKS=$((HOSTS * PPN))
[ -n "$DIMS" ] || DIMS="$(python3 -c "
import sys; n=$RANKS; best=None
for x in range(1,n+1):
  for y in range(1,x+1):
    if n%(x*y)==0 and n//(x*y)<=y:
      d=(x,y,n//(x*y)); s=max(d)-min(d)
      if best is None or s<best[0]: best=(s,d)
print('x'.join(map(str,best[1])))")"
mkdir -p "$OUT/bin"
now() { date +%s.%N; }

# 1. The fabric and its platform, reused when the same shape was exported with the same latency before.
FABRIC="$OUT/fabric-${HOSTS}h-${LEVELS}l${RADIX:+-r$RADIX}"
PLATFORM="$FABRIC${LATENCY:+-lat$LATENCY}.xml"
if [ ! -s "$PLATFORM" ]; then
  rm -rf "$FABRIC"
  python3 "$ROOT/scripts/gen_fabric.py" dump --hosts "$HOSTS" --levels "$LEVELS" ${RADIX:+--radix "$RADIX"} \
    --out "$FABRIC" >&2
  t0=$(now)
  "$CANOPY" topo "$FABRIC" --simgrid "$PLATFORM" ${LATENCY:+--simgrid-latency "$LATENCY"} | grep '^simgrid:' >&2
  echo "export: $(awk -v a="$(now)" -v b="$t0" 'BEGIN{printf "%.1f", a-b}') s, $(du -h "$PLATFORM" | cut -f1)" >&2
fi
# The allocation: the platform's hosts in name order, as a scheduler lists them.
ALLOCATION="$OUT/allocation-${HOSTS}h.txt"
grep -o '<host id="[^"]*"' "$PLATFORM" | cut -d'"' -f2 | sort > "$ALLOCATION"
[ "$(wc -l < "$ALLOCATION")" -eq "$HOSTS" ] || die "$PLATFORM does not hold $HOSTS hosts"

# 2. The benchmark, built with smpicc.
BENCH="$OUT/bin/$PATTERN"
SRC="$HERE/patterns/$([ "$PATTERN" = spmv ] && echo spmv_pattern || echo halo3d).c"
if [ ! -x "$BENCH" ] || [ "$SRC" -nt "$BENCH" ] || [ "$HERE/patterns/pattern_common.h" -nt "$BENCH" ]; then
  smpicc -O2 -o "$BENCH" "$SRC" -lm > "$BENCH.log" 2>&1 || { rm -f "$BENCH"; die "smpicc failed on $SRC: $(tail -3 "$BENCH.log")"; }
fi
ARGS=(--iters "$ITERS")
if [ "$PATTERN" = halo3d ]; then
  ARGS+=(--dims "$DIMS" --bytes "$BYTES")
else
  if [ -z "$GRAPH" ]; then
    GRAPH="$OUT/stencil27-$DIMS-$BYTES.txt"
    python3 "$HERE/smpi_placement.py" stencil27 --dims "$DIMS" --bytes "$BYTES" -o "$GRAPH"
  fi
  ARGS=("$GRAPH" "${ARGS[@]}")
fi

# 3. Every placement on the same platform.
echo "# $PATTERN, $RANKS ranks ($HOSTS hosts x $PPN), grid $DIMS, $LEVELS-level fat tree, $(basename "$PLATFORM")"
printf "%-14s %14s %14s %10s\n" placement comm_time_s per_step_us wall_s
for entry in "${LIST[@]}"; do
  name="${entry%%=*}" machinefile="$OUT/placement-$name-${RANKS}.txt"
  case "$entry" in
    *=*) machinefile="${entry#*=}" ;;
    *) python3 "$HERE/smpi_placement.py" "$name" --allocation "$ALLOCATION" --ppn "$PPN" --ranks "$RANKS" \
        --platform "$PLATFORM" --dims "$DIMS" -o "$machinefile" ;;
  esac
  [ "$(grep -c . "$machinefile")" -eq "$RANKS" ] || die "$machinefile: needs one host per line for each of $RANKS ranks"
  t0=$(now)
  log="$OUT/run-$PATTERN-$name-$RANKS.log"
  echo "[smpi_mapping $(date +%H:%M:%S)] $name: smpirun ..." >&2
  # SMPI exits 0 even after MPI_Abort: the result line is the proof of success.
  smpirun -np "$RANKS" -platform "$PLATFORM" -hostfile "$machinefile" --cfg=smpi/simulate-computation:no \
    --cfg=smpi/host-speed:1Gf "$BENCH" "${ARGS[@]}" > "$log" 2>&1 || true
  wall=$(awk -v a="$(now)" -v b="$t0" 'BEGIN{printf "%.1f", a-b}')
  line="$(grep -E '^(halo3d|spmv_pattern) ranks=' "$log" || true)"
  [ -n "$line" ] || die "$name: no result (see $log): $(grep -m1 -E '^(halo3d|spmv_pattern): error:' "$log" ||
    grep -v INFO "$log" | tail -3)"
  time_s="$(sed -E 's/.*comm_time_s=([^ ]+).*/\1/' <<< "$line")"
  step_us="$(sed -E 's/.*per_iter_us=([^ ]+).*/\1/' <<< "$line")"
  printf "%-14s %14s %14s %10.1f\n" "$name" "$time_s" "$step_us" "$wall"
done
