#!/usr/bin/env bash
# run_mpi.sh SECONDS NP PROGRAM ARGS...: PROGRAM on NP ranks, killed after SECONDS so that
# a deadlock fails instead of hanging.
#   MPI_LAUNCHER  the MPI's mpiexec (default: mpirun); Open MPI's and MPICH's Hydra
#                 (mpiexec.hydra, mpirun.mpich) are told apart by their --version
#   MPI_ENV       extra environment for the ranks, "A=1 B=2" (Open MPI -x, Hydra -genv)
#   MPI_BIND      core (NP must not exceed the cores), hwthread or socket (several ranks to one:
#                 Open MPI's socket:overload-allowed): what each rank is bound to; default none
# Sanitized programs (the ASan tests) get LSan suppressions for the MPI libraries' own leaks
# (lsan.supp; the slow unwinder keeps those libraries on the allocation stack when the
# frames above them are in an MPI plugin that was unloaded), and UBSan errors are fatal.
set -euo pipefail
limit=$1 np=$2; shift 2
launcher=${MPI_LAUNCHER:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

flags=(-np "$np")
version=$("$launcher" --version 2>&1 || true)
if [[ $version == *"Open MPI"* || $version == *"OpenRTE"* ]]; then
  # Containers: more ranks than cores, no binding, no CMA (ptrace is often forbidden).
  bind=${MPI_BIND:-none}
  [ "$bind" = socket ] && bind=socket:overload-allowed
  flags+=(--oversubscribe --bind-to "$bind" --mca btl_vader_single_copy_mechanism none)
  [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
  for kv in ${MPI_ENV:-}; do flags+=(-x "$kv"); done
elif [[ $version == *"HYDRA"* ]]; then
  # Hydra runs any number of ranks on the local host and as root without flags. No setting
  # makes Debian's MPICH 4.0.2 (ch4:ucx) yield while it waits (docs/testing.md: MPICH with more
  # ranks than cores), so none is passed; Canopy's own waits yield instead.
  [ -n "${MPI_BIND:-}" ] && flags+=(-bind-to "$MPI_BIND")
  for kv in ${MPI_ENV:-}; do flags+=(-genv "${kv%%=*}" "${kv#*=}"); done
else
  echo "run_mpi.sh: $launcher is neither Open MPI's nor MPICH's (Hydra) launcher" >&2
  exit 2
fi
exec timeout -k 10 "$limit" "$launcher" "${flags[@]}" "$@"
