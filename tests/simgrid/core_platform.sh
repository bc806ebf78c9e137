#!/usr/bin/env bash
# A per-core SimGrid platform (canopy topo --simgrid-cores, --simgrid-hosts) on a
# 16-host two-level fat tree: three allocated nodes of 2 sockets x 2 cores. A
# ping-pong between ranks placed on the same socket, the other socket, a node
# on the same leaf switch and a node across the spine must take strictly
# increasing simulated times, and the platform must hold one zone per node,
# one host per core and the zoneRoutes between the nodes' gateways.
# Usage: core_platform.sh CANOPY_BIN SOURCE_DIR
set -euo pipefail
CANOPY="$1" ROOT="$2"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/canopy_smpi_cores_XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$ROOT/scripts/gen_fabric.py" dump --hosts 16 --levels 2 --radix 8 --out "$OUT/fabric" > /dev/null
printf 'h0001\nh0002\nh0016\n' > "$OUT/job.hosts"
"$CANOPY" topo "$OUT/fabric" --simgrid "$OUT/job.xml" --simgrid-hosts "$OUT/job.hosts" \
  --simgrid-cores 'pack:2 core:2 pu:1' | grep '^simgrid:' || fail "export failed"
python3 - "$OUT/job.xml" <<'PY' || fail "platform structure"
import sys, xml.etree.ElementTree as ET
top = ET.parse(sys.argv[1]).getroot().find("zone")
zones = top.findall("zone")
assert [z.get("id") for z in zones] == ["h0001", "h0002", "h0016"], [z.get("id") for z in zones]
for z in zones:
    cores = [h.get("id") for h in z.findall("host")]
    assert cores == [z.get("id") + ".c%d" % c for c in range(4)], cores
    assert [r.get("id") for r in z.findall("router")] == [z.get("id") + ".nic"]
    assert len(z.findall("route")) == 6 + 4, len(z.findall("route"))  # core pairs + cores to the NIC
pairs = set()
for r in top.findall("zoneRoute"):
    assert r.get("gw_src") == r.get("src") + ".nic" and r.get("gw_dst") == r.get("dst") + ".nic"
    pairs.add((r.get("src"), r.get("dst")))
    if r.get("symmetrical") == "YES":
        pairs.add((r.get("dst"), r.get("src")))
assert len(pairs) == 6, sorted(pairs)
print("ok   platform: 3 node zones of 4 cores, zoneRoutes for all 6 ordered node pairs")
PY

smpicc -O2 -o "$OUT/core_pingpong" "$ROOT/tests/simgrid/core_pingpong.c" > "$OUT/smpicc.log" 2>&1 ||
  { cat "$OUT/smpicc.log"; fail "smpicc"; }
# rank 0 on h0001 core 0; then: same socket, other socket, same leaf, across the spine.
printf 'h0001.c0\nh0001.c1\nh0001.c2\nh0002.c0\nh0016.c3\n' > "$OUT/placement.txt"
for bytes in 8 65536; do
  smpirun -np 5 -platform "$OUT/job.xml" -hostfile "$OUT/placement.txt" --cfg=smpi/simulate-computation:no \
    --cfg=smpi/host-speed:1Gf "$OUT/core_pingpong" "$bytes" 4 > "$OUT/run.log" 2>&1 || true
  grep '^pair ' "$OUT/run.log" || { tail -5 "$OUT/run.log"; fail "$bytes B: no result"; }
  grep '^pair ' "$OUT/run.log" | sed -E 's/.*one_way_us=//' | awk -v b="$bytes" '
    { t[NR] = $1 }
    END {
      if (NR != 4) { print "expected 4 pairs, got " NR; exit 1 }
      split("same-socket other-socket same-leaf-node remote-node", name, " ")
      for (i = 2; i <= 4; i++)
        if (!(t[i] > t[i - 1])) { printf "%d B: %s (%s us) not slower than %s (%s us)\n", b, name[i], t[i], name[i - 1], t[i - 1]; exit 1 }
      printf "ok   %d B: same socket %s < other socket %s < node on the leaf %s < node across the spine %s us\n", b, t[1], t[2], t[3], t[4]
    }' || fail "simulated times do not follow the placement"
done

# Misuse: a clear error, exit 1, no file.
if "$CANOPY" topo "$OUT/fabric" --simgrid-cores 'pack:2 core:2 pu:1' > /dev/null 2> "$OUT/err.txt"; then
  fail "--simgrid-cores without --simgrid accepted"
fi
grep -q -- "--simgrid FILE" "$OUT/err.txt" || fail "unclear error: $(cat "$OUT/err.txt")"
printf 'h0001\nnosuchhost\n' > "$OUT/bad.hosts"
if "$CANOPY" topo "$OUT/fabric" --simgrid "$OUT/bad.xml" --simgrid-hosts "$OUT/bad.hosts" \
  --simgrid-cores 'pack:2 core:2 pu:1' > /dev/null 2> "$OUT/err.txt"; then
  fail "unknown host accepted"
fi
grep -q "bad.hosts:2" "$OUT/err.txt" || fail "error does not name file:line: $(cat "$OUT/err.txt")"
[ ! -e "$OUT/bad.xml" ] || fail "a failed export left a file"
echo "ok   per-core platform"
