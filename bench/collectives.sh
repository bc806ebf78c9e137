#!/usr/bin/env bash
# Canopy's collectives against the MPI library's own on one node, with `canopy bench
# --compare` (interleaved rounds), both methods (osu, smp-paper), 1 B .. 1 MiB; the tables
# and plots behind docs/benchmarks.md. Each run waits for a quiet machine first (1-minute load
# average below LOAD_MAX, default 1.0; up to WAIT_S seconds, default 600) and notes the load.
# ITERATIONS (default 200) and WARMUP (default 20) apply to every size (-i, -x); -z adds P50/P90/P99,
# which stay meaningful when other work on the machine spoils the averages.
# Usage: bench/collectives.sh [BUILD_DIR] [OUT_DIR] [RANKS]
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/canopy-bench/collectives}
ranks=${3:-2}
load_max=${LOAD_MAX:-1.0}
wait_s=${WAIT_S:-600}
counts=(-i "${ITERATIONS:-200}" -x "${WARMUP:-20}" -z)
mkdir -p "$out"
flags=(-np "$ranks" --bind-to core)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)

load() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() {
  for _ in $(seq "$wait_s"); do
    awk -v l="$(load)" -v m="$load_max" 'BEGIN { exit !(l < m) }' && return 0
    sleep 1
  done
  echo "warning: load average still $(load) after ${wait_s}s; measuring anyway" >&2
}

run() {  # NAME ARGS...: one canopy bench run, its table in NAME.txt (and NAME.svg for sized ones)
  local name=$1; shift
  wait_quiet
  { echo "# $(date -u +%FT%TZ), load average before: $(load)"
    echo "# mpirun ${flags[*]} canopy bench $*"
    mpirun "${flags[@]}" "$build/bin/canopy" bench "$@"; } | tee "$out/$name.txt"
}

for method in osu smp-paper; do
  run "bcast-$method" bcast --compare mpi,shm,binomial,auto "${counts[@]}" --method "$method" \
    --plot "$out/bcast-$method.svg"
  run "allgather-$method" allgather --compare mpi,recursive_doubling,ring,bruck,leader,auto "${counts[@]}" \
    --method "$method" --plot "$out/allgather-$method.svg"
  run "barrier-$method" barrier --compare mpi,dissemination,shm -i 5000 -x 500 -z --method "$method"
done
