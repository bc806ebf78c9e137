#!/usr/bin/env bash
# Canopy's collectives against the MPI library's own on one node, with `canopy bench
# --compare` (interleaved rounds): all eight collectives, every algorithm that runs on one node,
# Canopy's selection (`auto`) and the library (`mpi`), 1 B .. 1 MiB, P50/P90/P99 (-z); the tables
# behind docs/benchmarks.md ("Collectives on one node").
#
# Other work on the machine spoils shared-memory latencies (a rank waiting for a preempted
# peer). As root, the ranks run at real-time priority (SCHED_FIFO 50, `chrt`), so ordinary
# processes cannot preempt them; the ranks are bound to cores, so they never compete with each
# other. RANKS must not exceed the cores then (a FIFO rank spinning for a rank on its own core
# would wait for the kernel's real-time throttling). RT=0 turns this off; without it each run
# first waits for a quiet machine (1-minute load average below LOAD_MAX, default 1.0; up to
# WAIT_S seconds, default 600). Every table notes the load average and the priority.
# Usage: bench/collectives.sh [BUILD_DIR] [OUT_DIR] [RANKS]
#   COLLECTIVES="bcast reduce" limits the run; METHOD=smp-paper uses the tunable-SMP paper's
#   methodology (cache purge, barrier, maximum over ranks) instead of OSU's; PLOT=1 adds SVGs;
#   BIND=hwthread binds each rank to a hardware thread where the cores are fewer than the ranks
#   (default: core). Canopy's parameters pass as usual (CANOPY_COLL_LEADERS_PER_NODE=4 ...).
#   Defaults: build, /tmp/canopy-bench/collectives, 2. Each table, OUT/COLLECTIVE-METHOD.txt,
#   appears when its run has completed (a failed run leaves the previous one).
set -euo pipefail
. "$(dirname "$0")/positional_args.sh"
die() { echo "collectives.sh: error: $*" >&2; exit 1; }
build=${1:-build}
out=${2:-/tmp/canopy-bench/collectives}
ranks=${3:-2}
[ -x "$build/bin/canopy-bench" ] || die "$build/bin/canopy-bench not built (cmake --build $build --target canopy_bench_tool)"
command -v mpirun > /dev/null || die "no mpirun on the PATH"
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || die "RANKS takes a positive integer (got '$ranks')"
[[ "${WAIT_S:-600}" =~ ^[0-9]+$ ]] || die "WAIT_S takes a whole number of seconds (got '$WAIT_S')"
load_max=${LOAD_MAX:-1.0}
wait_s=${WAIT_S:-600}
method=${METHOD:-osu}
mkdir -p "$out"
flags=(-np "$ranks" --bind-to "${BIND:-core}")
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
priority=()
if [ "${RT:-1}" = 1 ] && [ "$ranks" -le "$(nproc)" ] && chrt -f 50 true 2>/dev/null; then
  priority=(chrt -f 50)
fi

declare -A algorithms=(
  [bcast]=mpi,auto,shm,binomial,knomial,scatter_rd_allgather,chain
  [allgather]=mpi,auto,recursive_doubling,ring,bruck,leader,multi_leader_p2p,multi_leader_shm
  [barrier]=mpi,auto,dissemination,shm
  [scatter]=mpi,auto,binomial,linear,shm
  [gather]=mpi,auto,binomial,linear,shm
  [alltoall]=mpi,auto,pairwise,bruck,shm
  [reduce]=mpi,auto,binomial,reduce_scatter_gather,shm
  [allreduce]=mpi,auto,recursive_doubling,reduce_scatter_allgather,ring,shm
)

load() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() {
  [ ${#priority[@]} -gt 0 ] && return 0
  awk -v l="$(load)" -v m="$load_max" 'BEGIN { exit !(l < m) }' ||
    echo "waiting for the 1-minute load average ($(load)) to fall below $load_max (up to ${wait_s}s)" >&2
  for _ in $(seq "$wait_s"); do
    awk -v l="$(load)" -v m="$load_max" 'BEGIN { exit !(l < m) }' && return 0
    sleep 1
  done
  echo "warning: load average still $(load) after ${wait_s}s; measuring anyway" >&2
}

for coll in ${COLLECTIVES:-bcast allgather barrier scatter gather alltoall reduce allreduce}; do
  case $coll in
    barrier) sizes=(-i 5000 -x 500) ;;
    reduce | allreduce) sizes=(-m 4:1048576) ;;  # whole MPI_FLOATs
    *) sizes=(-m 1:1048576) ;;
  esac
  plot=()
  [ "${PLOT:-0}" = 1 ] && [ "$coll" != barrier ] && plot=(--plot "$out/$coll-$method.svg")
  wait_quiet
  table=$out/$coll-$method.txt
  trap 'rm -f "$table.tmp"' EXIT
  { echo "# $(date -u +%FT%TZ), load average before: $(load), priority: ${priority[*]:-normal}"
    echo "# mpirun ${flags[*]} ${priority[*]} canopy-bench $coll --compare ${algorithms[$coll]} ${sizes[*]} -z --method $method"
    mpirun "${flags[@]}" "${priority[@]}" "$build/bin/canopy-bench" "$coll" --compare "${algorithms[$coll]}" \
      "${sizes[@]}" -z --method "$method" "${plot[@]}"; } | tee "$table.tmp"
  mv "$table.tmp" "$table"
done
