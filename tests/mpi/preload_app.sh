#!/usr/bin/env bash
# preload_app.sh RUN_MPI APP LIBCANOPY_MPI SCRATCH: the app's output must be identical
# without Canopy, with LD_PRELOAD=libcanopy-mpi.so (two virtual nodes), and with
# CANOPY_DISABLE=1; Canopy's info log proves the calls were intercepted (or not). A host
# map too short for the job, a bad inner algorithm or a missing config file falls back on every
# rank, with the same output.
set -euo pipefail
run_mpi=$1 app=$2 lib=$3 dir=$4
np=5
printf 'a:2\nb:3\n' > "$dir/preload-hostmap"
"$run_mpi" 120 $np "$app" > "$dir/plain.out"
MPI_ENV="LD_PRELOAD=$lib CANOPY_LOG_LEVEL=info CANOPY_HOSTMAP=$dir/preload-hostmap" \
  "$run_mpi" 120 $np "$app" > "$dir/canopy.out" 2> "$dir/canopy.err"
MPI_ENV="LD_PRELOAD=$lib CANOPY_LOG_LEVEL=info CANOPY_DISABLE=1" \
  "$run_mpi" 120 $np "$app" > "$dir/disabled.out" 2> "$dir/disabled.err"
diff "$dir/plain.out" "$dir/canopy.out"
diff "$dir/plain.out" "$dir/disabled.out"
intercepted=$(grep -c "canopy \[info\] [a-z]* [0-9]* bytes" "$dir/canopy.err" || true)
passed_through=$(grep -c "canopy \[info\]" "$dir/disabled.err" || true)
echo "lines: $(wc -l < "$dir/plain.out"), intercepted calls logged: $intercepted, with CANOPY_DISABLE=1: $passed_through"
[ "$intercepted" -gt 0 ] && [ "$passed_through" -eq 0 ]
grep -q "2 nodes" "$dir/canopy.err"
for coll in bcast allgather barrier scatter gather alltoall reduce allreduce; do  # each intercepted, not passed through
  grep -q "canopy \[info\] $coll [0-9]* bytes" "$dir/canopy.err" || { echo "no $coll call was intercepted"; exit 1; }
done
# A host map one rank short: that rank cannot place itself, and every rank falls back to the
# library's own collectives together (none waits for it in a split) with the same output.
printf 'a:2\nb:2\n' > "$dir/short-hostmap"
MPI_ENV="LD_PRELOAD=$lib CANOPY_HOSTMAP=$dir/short-hostmap" "$run_mpi" 120 $np "$app" > "$dir/short.out" 2> "$dir/short.err"
diff "$dir/plain.out" "$dir/short.out"
grep -q "the host map lists 4 ranks, MPI_COMM_WORLD has rank 4" "$dir/short.err"
grep -q "another rank could not read its parameters or host map" "$dir/short.err"
# Said once per communicator (the world and the split), not again at every call.
warned=$(grep -c "the host map lists 4 ranks" "$dir/short.err" || true)
[ "$warned" -le 2 ] || { echo "the host map warning came $warned times: once per call, not per communicator"; exit 1; }
# A bad value where an algorithm runs another inside it (two_level's Bcast in a node) falls back
# like any bad parameter, naming it, with the same output; so does a config file that is not there,
# which once aborted every rank (logging re-read it inside a noexcept path).
MPI_ENV="LD_PRELOAD=$lib CANOPY_HOSTMAP=$dir/preload-hostmap CANOPY_COLL_BCAST_INTRA_ALGORITHM=foo" \
  "$run_mpi" 120 $np "$app" > "$dir/inner.out" 2> "$dir/inner.err"
diff "$dir/plain.out" "$dir/inner.out"
grep -q "CANOPY_COLL_BCAST_INTRA_ALGORITHM: 'foo' is not a flat bcast algorithm" "$dir/inner.err"
MPI_ENV="LD_PRELOAD=$lib CANOPY_CONFIG_FILE=$dir/no-such-config.json" "$run_mpi" 120 $np "$app" > "$dir/config.out" 2> "$dir/config.err"
diff "$dir/plain.out" "$dir/config.out"
grep -q "Canopy collectives disabled" "$dir/config.err"
echo "1 passed, 0 failed"
