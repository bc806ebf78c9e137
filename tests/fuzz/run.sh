#!/usr/bin/env bash
# Runs every fuzz target in BIN_DIR for FUZZ_SECONDS (default 10) each, starting
# from tests/fuzz/corpus/<target>/ (copied, so the checked-in corpus stays small).
# Prints executions per target; exits non-zero if any target found a crash.
set -uo pipefail
bin_dir=${1:?usage: run.sh BIN_DIR}
seconds=${FUZZ_SECONDS:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
passed=0
for target in "$bin_dir"/fuzz_*; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  mkdir -p "$work/$name"
  [ -d "$here/corpus/$name" ] && cp -r "$here/corpus/$name/." "$work/$name/"
  "$target" -max_total_time="$seconds" -max_len=65536 -artifact_prefix="$work/$name-" \
      -print_final_stats=1 "$work/$name" > "$work/$name.log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "FUZZ $name: CRASH after ${runs:-?} executions"; tail -40 "$work/$name.log"
    mkdir -p fuzz-artifacts && cp "$work/$name"-* fuzz-artifacts/ 2>/dev/null
  else
    passed=$((passed + 1))
    echo "FUZZ $name: ${runs:-?} executions in ${seconds}s, no crash"
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
