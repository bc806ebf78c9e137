#!/usr/bin/env bash
# One end-to-end fabric test: generate a net file, start ibsim, route it with
# OpenSM (the engine must really be used), dump it with canopy-collect, then
# compare routes for a seeded sample of host pairs against the real ibtracert:
#   1. the dump's own forwarding tables (compare_routes.py's walk) vs ibtracert,
#      and the link rates ibnetdiscover reported vs what gen_fabric.py intended:
#      proves the dump canopy-collect published is faithful;
#   2. `canopy route DUMP A B --json` vs ibtracert, hop by hop, with the link
#      rates it reports checked against what gen_fabric.py intended.
#
# usage: fabric_e2e.sh --work DIR --collect PATH --canopy PATH --engine ENGINE -- GEN_FABRIC_ARGS...
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
pairs=${E2E_PAIRS:-40}
seed=${E2E_SEED:-7}
e2e_options "work collect canopy engine" "$@"
[ ${#e2e_rest[@]} -gt 0 ] || { echo "usage: fabric_e2e.sh --work DIR --collect PATH --canopy PATH --engine ENGINE -- GEN_ARGS..." >&2; exit 2; }


rm -rf "$work"
mkdir -p "$work"

step "generate: gen_fabric.py ${e2e_rest[*]}"
python3 "$root/scripts/gen_fabric.py" "${e2e_rest[@]}" -o "$work/fabric.net" --expect "$work/expect.json"
step_done generate

step "ibsim"
ibsim_start "$work/fabric.net" "$work/sim"
step_done ibsim

step "OpenSM ($engine)"
ibsim_route "$engine"
step_done opensm

step "canopy-collect --once"
ibsim_run "$collect" --once --out "$work/dumps"
step_done collect

compare=(python3 "$here/compare_routes.py" --dump "$work/dumps/current" --pairs "$pairs" --seed "$seed"
         --preload "$IBSIM_UMAD2SIM" --expected ibtracert)

step "dump forwarding tables vs ibtracert"
"${compare[@]}" --actual lft-walk --expect "$work/expect.json"
step_done compare-dump

step "canopy route vs ibtracert"
"${compare[@]}" --actual canopy --canopy "$canopy" --expect "$work/expect.json"
step_done compare-canopy
ibsim_stop
echo "timings: ${timings[*]/%/;}"
