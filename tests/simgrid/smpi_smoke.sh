#!/usr/bin/env bash
# 16 ranks of halo3d and of spmv_pattern on a 16-host two-level fat tree exported
# with --simgrid, under identity, random and leaf-blocks placements: every run
# must complete with a positive simulated time measured on SMPI's global clock,
# and the platform must be valid XML.
# Usage: smpi_smoke.sh CANOPY_BIN SOURCE_DIR
set -euo pipefail
CANOPY="$1" ROOT="$2"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/canopy_smpi_XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for pattern in halo3d spmv; do
  "$ROOT/bench/smpi_mapping.sh" --hosts 16 --radix 8 --pattern "$pattern" --bytes 16384 --iters 2 \
    --out "$OUT" --canopy "$CANOPY" > "$OUT/$pattern.txt" || fail "$pattern: smpi_mapping.sh failed"
  cat "$OUT/$pattern.txt"
  for placement in identity random leaf-blocks; do
    awk -v p="$placement" '$1 == p && $2 + 0 > 0 { found = 1 } END { exit !found }' "$OUT/$pattern.txt" ||
      fail "$pattern/$placement: no positive simulated time"
  done
  local_clock="$(grep -h -E '^(halo3d|spmv_pattern) ranks=' "$OUT"/run-*.log | grep -v ' clock=global ' || true)"
  [ -z "$local_clock" ] || fail "$pattern: a step time not measured on SMPI's global clock: $local_clock"
done
python3 - "$OUT"/fabric-16h-2l-r8.xml <<'PY' || fail "platform is not valid XML with 16 hosts"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
hosts = root.findall(".//host")
assert len(hosts) == 16, len(hosts)
print("ok   platform: 16 hosts, %d routes" % len(root.findall(".//route")))
PY
echo "ok   simgrid smoke"
