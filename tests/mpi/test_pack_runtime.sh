#!/usr/bin/env bash
# bench/pack_runtime.sh, which packs the benchmarks with Open MPI for a machine without MPI:
# a missing build is refused before anything is written, and so is a DIR holding files the
# script did not pack (it would replace the folder); a packed build runs the correctness
# suite (quick) and canopy bench on 2 ranks through the packed mpirun, and canopy through the
# packed `run`. Where `unshare -m` works (root), those runs see the system's Open MPI plugin,
# data and configuration folders hidden under empty mounts, so only the packed copies can serve.
# Usage: test_pack_runtime.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
set -euo pipefail
src=$1 build=$2 scratch=$3
dir=$scratch/runtime
rm -rf "$scratch" && mkdir -p "$dir"
fail() { echo "FAIL $*"; exit 1; }

touch "$dir/kept"
if bash "$src/bench/pack_runtime.sh" "$scratch/no-such-build" "$dir" 2>"$scratch/refused.txt"; then
  fail "a missing build was packed"
fi
grep -q "canopy not built" "$scratch/refused.txt" || fail "no clear error: $(cat "$scratch/refused.txt")"
[ -e "$dir/kept" ] || fail "the refused run touched $dir"
echo "ok   a missing build is refused and the folder is left alone"
if bash "$src/bench/pack_runtime.sh" "$build" "$dir" 2>"$scratch/refused.txt"; then
  fail "a folder the script did not pack was replaced"
fi
grep -q "is not a folder pack_runtime.sh made" "$scratch/refused.txt" || fail "no clear error: $(cat "$scratch/refused.txt")"
[ -e "$dir/kept" ] || fail "the refused run touched $dir"
echo "ok   a folder of other files is refused and left alone"

rm "$dir/kept"
bash "$src/bench/pack_runtime.sh" "$build" "$dir"
for f in bin/mpirun bin/run build/bin/canopy build/bin/canopy-bench build/bin/test_coll_correctness; do
  [ -x "$dir/$f" ] || fail "$f not packed"
done
echo "ok   packed"

# Runs its arguments, with the system's Open MPI folders hidden where a mount namespace can be made.
folders=()
for what in libdir pkgdatadir sysconfdir; do
  folders+=("$(ompi_info --path "$what" --parsable | sed -n "s/^path:$what://p")")
done
hidden=(unshare -m bash -c 'for d in '"${folders[*]}"'; do mount -t tmpfs none "$d" || exit 125; done; exec "$@"' hide)
if "${hidden[@]}" true 2>/dev/null; then
  echo "note: the system's Open MPI folders are hidden: ${folders[*]}"
else
  hidden=()
  echo "note: no mount namespace can be made here; the runs may also see the system's Open MPI"
fi
mpirun_packed() { "${hidden[@]}" env MPI_LAUNCHER="$dir/bin/mpirun" "$src/tests/mpi/run_mpi.sh" 120 2 "$@"; }

out=$(mpirun_packed "$dir/build/bin/test_coll_correctness" "$scratch" --quick 2>&1) || fail "correctness: $out"
grep -q "passed, 0 failed" <<<"$out" || fail "correctness: $out"
echo "ok   $(grep "passed, " <<<"$out")"
out=$(mpirun_packed "$dir/build/bin/canopy-bench" barrier --compare mpi,shm -i 20 -x 2 2>&1) || fail "canopy bench: $out"
grep -qE '^ +[0-9.]+ +[0-9.]+' <<<"$out" || fail "canopy bench printed no latencies: $out"
echo "ok   canopy bench through the packed mpirun"
"${hidden[@]}" "$dir/bin/run" "$dir/build/bin/canopy" info --config >/dev/null || fail "canopy through bin/run"
echo "ok   canopy through the packed run"
