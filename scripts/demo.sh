#!/usr/bin/env bash
# `make demo`: Canopy on a simulated InfiniBand cluster, end to end.
#   1. ibsim simulates the bundled 64-host two-level fat tree (data/fabrics/fat-tree-64.net);
#   2. OpenSM routes it with the ftree engine (checked in its log);
#   3. canopy-collect dumps it with the real ibnetdiscover and ibroute;
#   4. canopy loads the dump: summary, routes (checked against ibtracert), matrices, drawing.
# Usage: scripts/demo.sh [BUILD_DIR]   (outputs in demo-output/, or $CANOPY_DEMO_DIR)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${CANOPY_DEMO_DIR:-$root/demo-output}
fabric=$root/data/fabrics/fat-tree-64.net
canopy=$build/bin/canopy

# shellcheck source=ibsim_fabric.sh
source "$root/scripts/ibsim_fabric.sh"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

rm -rf "$out"
mkdir -p "$out"

step "1. ibsim simulates $(basename "$fabric") (64 hosts, 8 leaf and 8 spine switches, SDR and DDR links)"
ibsim_start "$fabric" "$out/ibsim"

step "2. OpenSM routes it with the ftree engine"
ibsim_route ftree

step "3. canopy-collect dumps it with the real ibnetdiscover and ibroute"
ibsim_run "$build/bin/canopy-collect" --once --out "$out/dumps"
echo "$(readlink "$out/dumps/current"): $(ls "$out/dumps/current" | tr "\n" " ")with $(ls "$out/dumps/current/ibroute" | wc -l) ibroute files"

step "4. what canopy sees in the dump"
show "$canopy" topo "$out/dumps" --svg "$out/fabric.svg"

step "5. routes: the one the fabric uses, hop by hop"
show "$canopy" route "$out/dumps" h0001 h0002
show "$canopy" route "$out/dumps" h0001 h0064
echo "Canopy's routes against the fabric's own answer (ibtracert), 40 host pairs:"
python3 "$root/tests/e2e/compare_routes.py" --dump "$out/dumps/current" --pairs 40 --seed 1 \
  --preload "$IBSIM_UMAD2SIM" --expected ibtracert --actual canopy --canopy "$canopy"

step "6. matrices for an 8-host job scattered over the fabric"
printf 'h0001\nh0002\nh0017\nh0018\nh0033\nh0041\nh0057\nh0064\n' > "$out/job.hosts"
show "$canopy" route "$out/dumps" --matrix "$out/job.hosts"

ibsim_stop
step "done"
echo "fabric drawing: $out/fabric.svg    dump: $out/dumps/current"
