#!/usr/bin/env bash
# bench/smpi_eval.sh on a given topology source and allocation (--fabric, --hosts:
# what `make demo` runs on its collected dump): a recorded two-switch ibsim dump,
# 16 ranks on its 4 hosts listed alternating between the switches. Every
# placement of both patterns must complete with a positive simulated step time,
# rt must cut identity's hop-bytes (identity puts the grid's neighbouring rows,
# ranks 0-3 and 4-7, under different switches), the chart must show both
# patterns, and --fabric without --hosts is an error, as is a bad number; without identity the change
# against it is '-'; a failed simulation leaves no results.txt or chart.
# Usage: smpi_eval_given.sh CANOPY_BIN SOURCE_DIR
set -euo pipefail
CANOPY="$1" ROOT="$2"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/canopy_smpi_eval_XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
DUMP="$ROOT/tests/data/cli/two-switch-dump"
printf '# two hosts per switch, alternating\nH1\nH3\n\nH2\nH4\n' > "$OUT/job.hosts"
"$ROOT/bench/smpi_eval.sh" --fabric "$DUMP" --hosts "$OUT/job.hosts" --ranks 16 --ppn 4 --node 'pack:2 core:2 pu:1' \
  --patterns halo3d,spmv --bytes 16384 --iters 2 --out "$OUT/run" --canopy "$CANOPY" > "$OUT/table.txt" ||
  fail "smpi_eval.sh failed"
cat "$OUT/table.txt"
for pattern in halo3d spmv; do
  for placement in identity rt rt+intra; do
    awk -v p="$pattern" -v q="$placement" '$1 == p && $2 == 16 && $3 == 4 && $4 == q && $5 + 0 > 0 { found = 1 }
      END { exit !found }' "$OUT/table.txt" || fail "$pattern/$placement: no positive step time on 4 nodes"
  done
  awk -v p="$pattern" '$1 == p && $4 == "rt" && $7 + 0 < 1 { found = 1 } END { exit !found }' "$OUT/table.txt" ||
    fail "$pattern: rt did not cut identity's hop-bytes"
done
grep -q '>halo3d<' "$OUT/run/results.svg" && grep -q '>spmv<' "$OUT/run/results.svg" && tail -c 200 "$OUT/run/results.svg" | grep -q '</svg>' ||
  fail "no chart of both patterns in results.svg"
grep -qx 'H1' "$OUT/run/job-4n-given.hosts" && [ "$(grep -c . "$OUT/run/job-4n-given.hosts")" -eq 4 ] ||
  fail "the job's hosts are not the allocation's (comments and blank lines skipped)"
if err="$("$ROOT/bench/smpi_eval.sh" --fabric "$DUMP" --out "$OUT/none" --canopy "$CANOPY" 2>&1)"; then
  fail "--fabric without --hosts succeeded"
fi
grep -q -- '--fabric needs --hosts' <<< "$err" || fail "--fabric without --hosts: unexpected message: $err"
# A bad number: one clear line, exit 1, before anything runs.
if err="$("$ROOT/bench/smpi_eval.sh" --fabric "$DUMP" --hosts "$OUT/job.hosts" --ppn 0 --out "$OUT/none" \
  --canopy "$CANOPY" 2>&1)"; then fail "--ppn 0 succeeded"; fi
[ "$err" = "smpi_eval: error: --ppn must be a positive integer, not '0'" ] || fail "--ppn 0: unexpected message: $err"
# Without identity, no change against it (not against the first placement run).
"$ROOT/bench/smpi_eval.sh" --fabric "$DUMP" --hosts "$OUT/job.hosts" --ranks 16 --ppn 4 --node 'pack:2 core:2 pu:1' \
  --patterns halo3d --bytes 16384 --iters 2 --placements rt --out "$OUT/rt" --canopy "$CANOPY" > "$OUT/rt.txt" 2> /dev/null ||
  fail "smpi_eval.sh --placements rt failed"
awk '$4 == "rt" && $6 == "-" { found = 1 } END { exit !found }' "$OUT/rt.txt" || fail "rt alone: vs_ident is not '-'"
# A failed simulation (halo3d rejects the face size) leaves no table or chart, not even the last run's.
if err="$("$ROOT/bench/smpi_eval.sh" --fabric "$DUMP" --hosts "$OUT/job.hosts" --ranks 16 --ppn 4 \
  --node 'pack:2 core:2 pu:1' --patterns halo3d --bytes 2000000000 --iters 2 --out "$OUT/run" --canopy "$CANOPY" 2>&1)"; then
  fail "an impossible face size succeeded"
fi
grep -q 'halo3d: error: --bytes' <<< "$err" || fail "failed run: the benchmark's error is not shown: $err"
[ ! -e "$OUT/run/results.txt" ] && [ ! -e "$OUT/run/results.svg" ] || fail "a failed run left results.txt or results.svg"
echo "ok   smpi_eval on a given fabric and allocation"
