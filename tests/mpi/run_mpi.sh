#!/usr/bin/env bash
# run_mpi.sh SECONDS NP PROGRAM ARGS...: mpirun with the flags containers need, killed
# after SECONDS so that a deadlock fails instead of hanging. Extra environment for the
# ranks: MPI_ENV="A=1 B=2" (forwarded with -x).
set -euo pipefail
limit=$1 np=$2; shift 2
flags=(-np "$np")
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  flags+=(--oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none)
  [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
  for kv in ${MPI_ENV:-}; do flags+=(-x "$kv"); done
else
  for kv in ${MPI_ENV:-}; do flags+=(-genv "${kv%%=*}" "${kv#*=}"); done
fi
exec timeout -k 10 "$limit" mpirun "${flags[@]}" "$@"
